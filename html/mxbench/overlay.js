/* mxbench's overlay on asv 0.6.6's site (copied to <html_dir>/mxbench/overlay.js by
   `python -m mxbench publish`, loaded after jQuery and asv's own scripts, before the page is
   ready). asv's files are not changed; this file

   1. answers asv's JSON requests from <script> files when the page is opened from disk
      (file://, where the browser refuses XMLHttpRequest): `python -m mxbench publish` writes
      every JSON file asv's pages fetch (info.json, index.json, regressions.json, graphs/**)
      again as mxbench/file-data/*.js, which call mxbenchFileData({path: data, ...});
   2. gives a benchmark page opened without a selection (#<benchmark>, no "?") the default view
      of mxbench/defaults.js (window.MXBENCH_DEFAULTS[benchmark]: the machine with the most
      results, only the parameter values that have data, at most a handful of series), written
      into the address the way asv's own buttons write it, so every other selection stays one
      click away;
   3. keeps the release labels above the graph (asv draws one per tag) from overlapping: where
      two would overlap, the less important one is hidden (x.y.0 first, then the newest
      release of each minor line, then other patch releases, then post releases; newer before
      older), and no label stands over the line of a more important hidden one; a hidden
      release is named in the title (tooltip) of the label shown nearest to it. Zooming in
      (drag on the graph) shows them again as room allows.
   4. replaces asv's $.asv.load_graph_data, whose cache hit reads the cache a moment after
      the check: a graph page that loads more than five graph files (graph_cache_max_size)
      empties the cache in between and draws from `undefined` (a TypeError in
      filter_graph_data). This one reads the cached data at once, and keeps more of it.
*/
(function () {
    'use strict';

    var $ = window.jQuery;
    var FILE_DATA = 'mxbench/file-data/';
    var LABEL_GAP = 4;  /* px between two release labels */

    /* --- 1. file:// ------------------------------------------------------------------------ */
    var store = {};    /* path relative to the site (decoded) -> parsed JSON */
    var bundles = {};  /* bundle name -> $.Deferred, resolved once its script has run */

    window.mxbenchFileData = function (files) {
        for (var path in files) {
            if (Object.prototype.hasOwnProperty.call(files, path)) {
                store[path] = files[path];
            }
        }
    };

    /* Which file-data bundle holds a path; must match mxbench/site/overlay.py:file_data_bundle. */
    function bundle_of(path) {
        if (path === 'info.json' || path === 'index.json') {
            return 'index';
        }
        if (path === 'regressions.json') {
            return 'regressions';
        }
        if (/^graphs\/summary\/[^\/]+\.json$/.test(path)) {
            return 'summaries';
        }
        if (/^graphs\/.+\/summary\.json$/.test(path)) {
            return path.slice(0, -'.json'.length);  /* the list view's table: one each */
        }
        var match = /^graphs\/(?:.*\/)?([^\/]+)\.json$/.exec(path);
        return match ? 'graphs/' + match[1] : null;
    }

    function load_bundle(name) {
        if (!bundles[name]) {
            var done = bundles[name] = $.Deferred();
            var script = document.createElement('script');
            script.src = FILE_DATA + name.split('/').map(encodeURIComponent).join('/') + '.js';
            script.onload = function () { done.resolve(); };
            script.onerror = function () { done.reject(); };
            document.head.appendChild(script);
        }
        return bundles[name].promise();
    }

    if (window.location.protocol === 'file:' && $ && $.ajax) {
        var ajax = $.ajax;
        $.ajax = function (url, options) {
            var settings = (typeof url === 'object') ? url : $.extend({}, options, {url: url});
            var path = String(settings.url || '').split(/[?#]/)[0].replace(/^\.\//, '');
            try {
                path = decodeURIComponent(path);
            } catch (e) {
                return ajax.apply(this, arguments);
            }
            var answer = $.Deferred();
            if (path === 'swallow.ico') {
                /* asv's "is the server still there?" probe after graphs failed to load: it
                   is; the graphs are missing (asv then says "No data for this combination"). */
                setTimeout(function () { answer.resolve('', 'success'); }, 0);
                return answer.promise();
            }
            var bundle = bundle_of(path);
            if (bundle === null) {
                return ajax.apply(this, arguments);
            }
            load_bundle(bundle).then(function () {
                if (Object.prototype.hasOwnProperty.call(store, path)) {
                    answer.resolve(store[path], 'success');
                } else {
                    answer.reject(null, 'error', 'Not Found');
                }
            }, function () {
                answer.reject(null, 'error', 'Not Found');
            });
            return answer.promise();
        };
    }

    /* --- 2. the default view of a benchmark page ------------------------------------------ */
    function default_hash(hash) {
        var defaults = window.MXBENCH_DEFAULTS || {};
        var location = (hash || '').replace(/^#\/?/, '');
        if (!location || location.indexOf('?') !== -1) {
            return null;  /* the index, or an address that already says what to show */
        }
        var name;
        try {
            name = decodeURIComponent(location);
        } catch (e) {
            return null;
        }
        var view = Object.prototype.hasOwnProperty.call(defaults, name) ? defaults[name] : null;
        if (!view) {
            return null;
        }
        /* The encoding of asv.js:format_hash_string (null is "[none]"). */
        var parts = [];
        $.each(view, function (key, values) {
            $.each(values, function (i, value) {
                parts.push(encodeURIComponent(key) + '=' +
                           encodeURIComponent(value === null ? '[none]' : value));
            });
        });
        return '#' + location + '?' + parts.join('&');
    }

    function apply_default_view() {
        var hash = default_hash(window.location.hash);
        if (hash === null) {
            return;
        }
        if (window.history && window.history.replaceState) {
            /* the same history entry, so Back goes where it went before */
            window.history.replaceState(window.history.state, '', hash);
        } else {
            window.location.replace(hash);
        }
    }

    /* Now, before asv reads the address (it does once index.json has loaded), and on every
       change of address before asv's own hashchange handler (bound later, so it runs after
       this one and reads the rewritten address). */
    apply_default_view();
    window.addEventListener('hashchange', apply_default_view);

    /* --- 3. release labels ------------------------------------------------------------------ */
    function parse_release(tag) {
        var m = /^(\d+)\.(\d+)\.(\d+)(?:\.post(\d+))?$/.exec(tag);
        if (!m) {
            return null;
        }
        return {line: m[1] + '.' + m[2], patch: Number(m[3]), post: m[4] !== undefined};
    }

    /* Lower is more important. */
    function label_rank(tag, newest_of_line) {
        var release = parse_release(tag);
        if (release === null) {
            return 2;
        }
        if (release.patch === 0 && !release.post) {
            return 0;
        }
        if (newest_of_line[release.line] === tag) {
            return 1;
        }
        return release.post ? 3 : 2;
    }

    function tidy_release_labels() {
        var graph = document.getElementById('main-graph');
        var tags = $ && $.asv && $.asv.main_json && $.asv.main_json.tags;
        if (!graph || !tags) {
            return;
        }
        var newest_of_line = {};
        $.each(tags, function (tag, revision) {
            var release = parse_release(tag);
            if (release) {
                var best = newest_of_line[release.line];
                if (best === undefined || tags[best] < revision) {
                    newest_of_line[release.line] = tag;
                }
            }
        });

        var labels = [];
        $(graph).children('div').each(function () {
            var tag = $(this).text();
            if (Object.prototype.hasOwnProperty.call(tags, tag)) {
                $(this).addClass('mxbench-release-label').removeClass('mxbench-release-hidden');
                labels.push({el: this, tag: tag, revision: tags[tag],
                             rank: label_rank(tag, newest_of_line)});
            }
        });
        $.each(labels, function (i, label) {
            label.box = label.el.getBoundingClientRect();
        });
        labels.sort(function (a, b) {
            return (a.rank - b.rank) || (b.revision - a.revision);
        });

        /* Most important first: a label is shown where it overlaps no label shown already
           and does not stand over the line of a more important release hidden already (its
           text starts at its own line and runs to the right, over later lines). */
        var shown = [], hidden = [];
        $.each(labels, function (i, label) {
            var clash = false;
            $.each(shown, function (j, other) {
                if (label.box.left < other.box.right + LABEL_GAP &&
                        other.box.left < label.box.right + LABEL_GAP &&
                        label.box.top < other.box.bottom && other.box.top < label.box.bottom) {
                    clash = true;
                    return false;
                }
            });
            $.each(hidden, function (j, other) {
                if (other.box.left > label.box.left && other.box.left < label.box.right) {
                    clash = true;
                    return false;
                }
            });
            if (clash) {
                $(label.el).addClass('mxbench-release-hidden');
                hidden.push(label);
            } else {
                label.covers = [];
                shown.push(label);
            }
        });

        /* Each hidden release is named in the tooltip of the label shown nearest to its line. */
        $.each(labels, function (i, label) {
            if (!$(label.el).hasClass('mxbench-release-hidden')) {
                return;
            }
            var nearest = null;
            $.each(shown, function (j, other) {
                if (nearest === null ||
                        Math.abs(other.box.left - label.box.left) <
                        Math.abs(nearest.box.left - label.box.left)) {
                    nearest = other;
                }
            });
            if (nearest !== null) {
                nearest.covers.push(label);
            }
        });
        $.each(shown, function (i, label) {
            var title = 'release ' + label.tag;
            if (label.covers.length) {
                label.covers.sort(function (a, b) { return a.revision - b.revision; });
                title += '; also near here (zoom in to see them): ' + $.map(label.covers,
                    function (c) { return c.tag; }).join(', ');
            }
            label.el.setAttribute('title', title);
        });
    }

    var tidy_pending = false;
    function schedule_tidy() {
        if (!tidy_pending) {
            tidy_pending = true;
            setTimeout(function () {
                tidy_pending = false;
                tidy_release_labels();
            }, 0);
        }
    }

    if ($) {
        $(function () {
            var graph = document.getElementById('main-graph');
            if (graph && window.MutationObserver) {
                /* asv redraws the graph (flot empties the element) and appends the labels on
                   every load, resize and zoom: tidy after each. */
                new MutationObserver(schedule_tidy).observe(graph, {childList: true});
            }
        });
    }

    /* --- 4. asv's graph cache, without its race --------------------------------------------- */
    var GRAPH_CACHE_SIZE = 200;  /* graph files kept; a page loads one per series */
    var graph_cache = {};
    var graph_cache_count = 0;

    function load_graph_data(url) {
        var answer = $.Deferred();
        if (Object.prototype.hasOwnProperty.call(graph_cache, url)) {
            var data = graph_cache[url];  /* read now: the timeout below may find it gone */
            setTimeout(function () { answer.resolve(data); }, 1);
        } else {
            $.ajax({
                url: url + '?timestamp=' + $.asv.main_timestamp,
                dataType: 'json',
                cache: true
            }).done(function (data) {
                if (graph_cache_count >= GRAPH_CACHE_SIZE) {
                    graph_cache = {};
                    graph_cache_count = 0;
                }
                if (!Object.prototype.hasOwnProperty.call(graph_cache, url)) {
                    graph_cache_count += 1;
                }
                graph_cache[url] = data;
                answer.resolve(data);
            }).fail(function () {
                answer.reject();
            });
        }
        return answer.promise();
    }

    if ($) {
        $(function () {  /* after asv's own ready handler, which sets up $.asv */
            if ($.asv && $.asv.load_graph_data) {
                $.asv.load_graph_data = load_graph_data;
            }
        });
    }

    /* For tests and the curious. */
    window.mxbenchOverlay = {
        default_hash: default_hash,
        bundle_of: bundle_of,
        tidy_release_labels: tidy_release_labels
    };
})();
