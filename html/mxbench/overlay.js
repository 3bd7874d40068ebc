/* mxbench's overlay on asv 0.6.6's site (copied to <html_dir>/mxbench/overlay.js by
   `python -m mxbench publish`, loaded after jQuery and asv's own scripts, before the page is
   ready). asv's files are not changed; this file

   1. answers asv's JSON requests from <script> files, over HTTP and from disk (file://,
      where the browser refuses XMLHttpRequest): `python -m mxbench publish` writes every
      JSON file asv's pages fetch (info.json, index.json, graphs/**, changes.json) as
      mxbench/file-data/*.js, which call mxbenchFileData({path: data, ...}), and keeps no
      JSON copy (mxbench/site/file_data.py); a page loads the scripts of what it shows, the
      benchmark's code and default view with its graphs (shown in a "code" panel);
   2. gives a benchmark page opened without a selection (#<benchmark>, no "?") the default view
      of its graph script (window.MXBENCH_DEFAULTS[benchmark]: the machine with the most
      results, only the parameter values that have data, at most a handful of series, asv's
      log scale where the values span a decade), written into the address the way asv's own
      buttons write it, so every other selection stays one click away; a graph page whose
      address asks for no log scale is drawn linear (asv kept it from the page before);
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
   5-6. units, legends, colours; the x axis titled "release"; release names for commits:
      asv's get_commit_hash answers a ladder commit's release, so its tooltips ("1.9 ms @
      1.6.0"), commit selector and the list's "Changed at" name releases; a click on a point,
      and an address naming only a commit or a release (#ebc37c66), open the change page.
   8. changes.json (mxbench/site/change_data.py): every change of asv's regressions and of the
      confirmation runs, with the values at both releases; history_ratio is the one place
      the site computes a change's ratio (later / earlier, as generated-reports/CHANGES.md).
   9. the regressions page, from changes.json: sorted by verdict (confirmed first) then size,
      a search box, 100 rows drawn at a time, a machine column (asv's page drew 3,000 rows
      with a hover graph each, 13-15 s).
   10. the change page (#change?point=&machine=&flavor=&python=&base=&head=, any of them):
      the releases, where, the history's ratio, the confirmation's ratio and interval with
      its verdict, instruction counts, the point's noise, both graphs, the commands.
   11. the about block (mxbench/about.js: the machines, flavors, the build) on the grid's page
      and at #about; the benchmark list opens on the history's machine.
   12. graphs: the Python 3.7 points (1.2.x) on their flavor's line, marked apart; the point's
      noise band (mxbench/noise.js); a ring and the ratio on each confirmed change; a margin
      around the y range.
   13. the grid (asv's summarygrid), built a section at a time, each box drawn when it comes
      into view (asv built all 3,500 boxes before drawing any); data-mxbench-grid="built"
      once complete.
*/
(function () {
    'use strict';

    var $ = window.jQuery;
    var FILE_DATA = 'mxbench/file-data/';
    var LABEL_GAP = 4;  /* px between two release labels */

    /* --- 1. the site's data, from scripts (HTTP and file://) --------------------------------- */
    var store = {};    /* path relative to the site (decoded) -> its data as its script holds it */
    var bundles = {};  /* bundle name -> $.Deferred, resolved once its script has run */
    var BENCHMARK_ENTRY = 'benchmark/';  /* + name: {code, view}, in the benchmark's graph script */
    var index_json = null;  /* index.json, unpacked once */
    var positions = {};     /* benchmark -> its position in index.json (the summary scripts) */
    var summary_chunk = 40; /* benchmarks per summary script (index.json says) */
    window.MXBENCH_DEFAULTS = window.MXBENCH_DEFAULTS || {};

    window.mxbenchFileData = function (files) {
        for (var path in files) {
            if (Object.prototype.hasOwnProperty.call(files, path)) {
                store[path] = files[path];
                if (path.indexOf(BENCHMARK_ENTRY) === 0) {
                    take_benchmark_entry(path.slice(BENCHMARK_ENTRY.length), files[path]);
                }
            }
        }
    };

    /* Which file-data script holds a path; must match mxbench/site/file_data.py:bundle_of. */
    function bundle_of(path) {
        var named = {'info.json': 'index', 'index.json': 'index', 'changes.json': 'changes',
                     'confirmations.json': 'confirmations'};
        if (Object.prototype.hasOwnProperty.call(named, path)) {
            return named[path];
        }
        if (path.indexOf(BENCHMARK_ENTRY) === 0) {
            return 'graphs/' + path.slice(BENCHMARK_ENTRY.length);
        }
        var summary = /^graphs\/summary\/([^\/]+)\.json$/.exec(path);
        if (summary) {
            var n = positions[summary[1]];
            return n === undefined ? null : 'summaries/' + Math.floor(n / summary_chunk);
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

    /* A file as asv (or mxbench/site/change_data.py) wrote it, from its packed form in its
       script; the same as file_data.py:unpack. */
    function unpack(path, data) {
        if (path === 'index.json' && data && data.mxbench_benchmarks) {
            index_json = index_json || unpack_index(data);
            return index_json;
        }
        if (path === 'changes.json' && data && data.tables) {
            return $.extend({}, data, {tables: undefined,
                                       changes: unpack_columns(data.fields, data.changes,
                                                               data.tables)});
        }
        if (data && data.mxbench_fields) {  /* the list view's table */
            return $.map(unpack_columns(data.mxbench_fields, data.rows, data.tables),
                         function (row) {
                             var object = {};
                             $.each(data.mxbench_fields, function (i, f) { object[f] = row[i]; });
                             if (object.pretty_name === null) {
                                 object.pretty_name = row_pretty_name(object.name, object.idx);
                             }
                             return object;
                         });
        }
        return data;
    }

    /* asv's pretty_name of a list row: the name with the values of parameter combination
       idx, the last parameter varying fastest (file_data.py:row_pretty_name). */
    function row_pretty_name(name, idx) {
        var bench = index_json.benchmarks[name], combo = [];
        var pretty = bench.pretty_name || name;
        if (idx === null || idx === undefined) {
            return pretty;
        }
        for (var axis = bench.params.length - 1; axis >= 0; axis--) {
            combo.unshift(bench.params[axis][idx % bench.params[axis].length]);
            idx = Math.floor(idx / bench.params[axis].length);
        }
        return pretty + '(' + combo.join(', ') + ')';
    }

    /* Rows whose columns named in `tables` hold indices into them (file_data.py:pack_columns). */
    function unpack_columns(fields, rows, tables) {
        var columns = $.map(tables || {}, function (table, field) {
            return [[fields.indexOf(field), table]];
        });
        return $.map(rows, function (row) {
            var copy = row.slice();
            $.each(columns, function (i, column) { copy[column[0]] = column[1][copy[column[0]]]; });
            return [copy];
        });
    }

    /* index.json's benchmarks from {units, params, groups: {"a.b": [[c, unit, params]]}};
       each one's code comes with its graph script (take_benchmark_entry). */
    function unpack_index(packed) {
        var compact = packed.mxbench_benchmarks, index = {}, benchmarks = {}, n = 0;
        summary_chunk = compact.summary_chunk || summary_chunk;
        $.each(packed, function (key, value) {
            if (key !== 'mxbench_benchmarks') {
                index[key] = value;
            }
        });
        $.each(compact.groups, function (prefix, rows) {
            $.each(rows, function (i, row) {
                var name = prefix ? prefix + '.' + row[0] : row[0];
                var params = compact.params[row[2]];
                var bench = {name: name, unit: compact.units[row[1]], params: params[0],
                             param_names: params[1]};
                if (row.length > 3) {
                    bench.pretty_name = row[3];
                }
                if (store[BENCHMARK_ENTRY + name]) {
                    bench.code = store[BENCHMARK_ENTRY + name].code;
                }
                benchmarks[name] = bench;
                positions[name] = n++;
            });
        });
        index.benchmarks = benchmarks;
        return index;
    }

    /* A grid box's graph of a benchmark with no data (window.MXBENCH_NO_DATA): none. */
    function no_summary(path) {
        var summary = /^graphs\/summary\/([^\/]+)\.json$/.exec(path);
        return summary !== null && $.inArray(summary[1], window.MXBENCH_NO_DATA || []) !== -1;
    }

    /* A benchmark's code and default view, once its graph script has run. */
    function take_benchmark_entry(name, entry) {
        if (entry && entry.view) {
            window.MXBENCH_DEFAULTS[name] = entry.view;
        }
        if (index_json && Object.prototype.hasOwnProperty.call(index_json.benchmarks, name)) {
            index_json.benchmarks[name].code = entry ? entry.code : null;
        }
        setTimeout(show_code, 0);
    }

    /* The benchmark of an address with no selection (#<benchmark>), or null. */
    function bare_benchmark(hash) {
        var location = (hash || '').replace(/^#\/?/, '');
        var name;
        if (!location || location.indexOf('?') !== -1 || index_json === null) {
            return null;
        }
        try {
            name = decodeURIComponent(location);
        } catch (e) {
            return null;
        }
        return Object.prototype.hasOwnProperty.call(index_json.benchmarks, name) ? name : null;
    }

    /* Resolved once the graph script of the address's benchmark has run, where the address
       asks for its default view (section 2 reads it from that script). */
    function default_view_loaded() {
        var name = bare_benchmark(window.location.hash);
        if (name === null || store[BENCHMARK_ENTRY + name]) {
            return $.Deferred().resolve().promise();
        }
        return load_bundle(bundle_of(BENCHMARK_ENTRY + name));
    }

    /* The data of `path` (answer.resolve'd) once its script has run; index.json once the
       address's default view is known too, so that asv reads the completed address. */
    function answer_from_scripts(path, bundle, answer) {
        load_bundle(bundle).then(function () {
            if (!Object.prototype.hasOwnProperty.call(store, path)) {
                answer.reject(null, 'error', 'Not Found');
                return;
            }
            var data = unpack(path, store[path]);
            if (path !== 'index.json') {
                answer.resolve(data, 'success');
                return;
            }
            default_view_loaded().always(function () {
                apply_default_view();
                answer.resolve(data, 'success');
                show_code();
            });
        }, function () {
            answer.reject(null, 'error', 'Not Found');
        });
    }

    if ($ && $.ajax) {
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
            if (no_summary(path)) {
                /* asv asks for the boxes it hides too (a hidden box counts as in view) */
                setTimeout(function () { answer.reject(null, 'error', 'Not Found'); }, 0);
                return answer.promise();
            }
            answer_from_scripts(path, bundle, answer);
            return answer.promise();
        };
    }

    /* A new address of a benchmark with no selection: asv's own handler (and section 2's)
       wait until the benchmark's script, with its default view, has run. */
    window.addEventListener('hashchange', function (event) {
        var name = bare_benchmark(window.location.hash);
        if (name === null || store[BENCHMARK_ENTRY + name]) {
            return;
        }
        event.stopImmediatePropagation();
        default_view_loaded().always(function () {
            apply_default_view();
            $(window).trigger('hashchange');
        });
    });

    /* The benchmark's code (asv showed it as a tooltip from index.json, which no longer
       carries it): a panel under the graph page's selectors, from the benchmark's script. */
    function show_code() {
        var bench = $ && $.asv && $.asv.main_json ? current_benchmark() : null;
        var panel = $('#mxbench-code');
        if (!bench || !bench.code) {
            panel.remove();
            return;
        }
        if (!panel.length) {
            panel = $('<div id="mxbench-code" class="panel panel-default">' +
                      '<div class="panel-heading">code</div>' +
                      '<div class="panel-body"><pre></pre></div></div>')
                .appendTo('#graphdisplay-navigation');
        }
        /* HTML already: `mxbench publish` escaped it (mxbench/site/shown_text.py) */
        panel.find('pre').html(bench.code);
    }

    if ($) {
        $(function () {  /* reads the address, not asv's state: before or after asv's handler */
            $(window).on('hashchange', show_code);
        });
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

    /* An address that names only a commit or a release (#ebc37c66, #1.9.1: asv's links
       with an empty show_commit_url; benchmark names have a "." and no leading digit):
       the change page of that release. */
    function release_hash(hash) {
        var location = (hash || '').replace(/^#\/?/, '');
        if (/^[0-9a-f]{6,40}$/.test(location) || /^[0-9]+\.[0-9]+\.[0-9][0-9a-z.]*$/.test(location)) {
            return '#change?head=' + encodeURIComponent(location);
        }
        return null;
    }

    function apply_default_view() {
        var hash = release_hash(window.location.hash) || default_hash(window.location.hash) ||
            list_hash(window.location.hash);
        if (hash !== null) {
            if (window.history && window.history.replaceState) {
                /* the same history entry, so Back goes where it went before */
                window.history.replaceState(window.history.state, '', hash);
            } else {
                window.location.replace(hash);
            }
        }
        linear_unless_asked();
    }

    /* asv switches its log scale on from an address (y-axis-scale=log) but never off, so a
       graph page opened after a log-scale one kept the log scale whatever its own default
       view says. A graph page whose address does not ask for it is drawn linear: asv's own
       button handler switches it off, its address update (a copy of the address) held back. */
    function linear_unless_asked() {
        var button = $ ? $('#log-scale') : null;
        var location = (window.location.hash || '').replace(/^#\/?/, '');
        var name = location.split('?')[0];
        if (!button || !button.hasClass('active') || !$.asv || !name || name === 'regressions'
                || name === 'summarylist' || /[?&]y-axis-scale=log(&|$)/.test(location)) {
            return;
        }
        var format = $.asv.format_hash_string;
        $.asv.format_hash_string = function () { return window.location.hash; };
        try {
            button.triggerHandler('click');
        } finally {
            $.asv.format_hash_string = format;
        }
        button.removeClass('active');
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
        /* The first and the last release of the range: always shown, their text ending at
           their line (the last one's text would run past the plot's right edge, clipped and
           a horizontal scrollbar on the page; the first has the room above the y axis). */
        var first = null, last = null;
        $.each(labels, function (i, label) {
            if (first === null || label.revision < first.revision) {
                first = label;
            }
            if (last === null || label.revision > last.revision) {
                last = label;
            }
        });
        $.each([first, last], function (i, label) {
            if (label !== null) {
                label.rank = -1;
                $(label.el).addClass('mxbench-release-end');
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
                tidy_commit_box();
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

    /* --- 5. units, legends, colours ----------------------------------------------------------- */
    var MICRO = '\u00b5';
    var TIME_UNITS = [['ns', 1e-9], [MICRO + 's', 1e-6], ['ms', 1e-3], ['s', 1]];
    var BYTE_UNITS = [['B', 1], ['KiB', 1024], ['MiB', 1024 * 1024], ['GiB', 1024 * 1024 * 1024]];

    function units_of(unit) {
        return unit === 'seconds' ? TIME_UNITS : unit === 'bytes' ? BYTE_UNITS : null;
    }

    /* The largest unit not above |x| (the smallest for 0). */
    function unit_for(units, x) {
        var best = units[0];
        $.each(units, function (i, u) {
            if (Math.abs(x) >= u[1]) {
                best = u;
            }
        });
        return best;
    }

    /* A plain number: three significant digits, no exponent, no trailing zeros. */
    function plain(x) {
        if (x === 0) {
            return '0';
        }
        var digits = Math.max(0, 2 - Math.floor(Math.log(Math.abs(x)) / Math.LN10));
        return String(parseFloat(x.toFixed(Math.min(digits, 6))));
    }

    /* A value with its unit: "12.3 ms", "80.5 MiB" (asv: "12.345ms", "80.5M"). */
    function human(x, unit) {
        var units = units_of(unit);
        if (x === null || x === undefined || isNaN(x)) {
            return 'n/a';
        }
        if (units === null) {
            return plain(x) + (unit && unit !== 'unit' ? ' ' + unit : '');
        }
        if (!isFinite(x)) {
            return String(x);
        }
        var u = unit_for(units, x);
        return plain(x / u[1]) + ' ' + u[0];
    }

    /* Ticks at round values of one unit, chosen by the axis' largest value. */
    function unit_ticks(units) {
        return function (axis) {
            var u = unit_for(units, Math.max(Math.abs(axis.max), Math.abs(axis.min)));
            var lo = axis.min / u[1], hi = axis.max / u[1];
            var raw = (hi - lo) / 6 || 1;
            var magnitude = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
            var step = magnitude * 10;
            $.each([1, 2, 2.5, 5, 10], function (i, f) {
                if (f * magnitude >= raw) {
                    step = f * magnitude;
                    return false;
                }
            });
            var ticks = [];
            for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
                var value = parseFloat(v.toFixed(10));
                ticks.push([value * u[1], plain(value) + ' ' + u[0]]);
            }
            return ticks;
        };
    }

    function current_benchmark() {
        var location = (window.location.hash || '').replace(/^#\/?/, '').split('?')[0];
        var benchmarks = $.asv && $.asv.main_json && $.asv.main_json.benchmarks;
        try {
            location = decodeURIComponent(location);
        } catch (e) {
            return null;
        }
        return benchmarks && Object.prototype.hasOwnProperty.call(benchmarks, location)
            ? benchmarks[location] : null;
    }

    /* asv labels each line with every parameter that varies in the page's selection; the
       parts common to every line drawn say nothing about the line (the selectors show them):
       each legend entry keeps what differs. Colours follow the sorted full labels, not the
       order in which the graph files happened to load (file:// and HTTP differ there). */
    function tidy_series(data, colors) {
        var series = $.grep(data || [], function (s) {
            return s && typeof s === 'object' && !$.isArray(s);
        });
        $.each(series, function (i, s) {
            if (s.mxbench_label === undefined) {
                s.mxbench_label = s.label === undefined ? null : s.label;
            }
        });
        var labels = [];
        $.each(series, function (i, s) {
            if (s.mxbench_label !== null && $.inArray(s.mxbench_label, labels) === -1) {
                labels.push(s.mxbench_label);
            }
        });
        labels.sort();
        var common = null;
        $.each(labels, function (i, label) {
            var parts = label.split('; ');
            common = common === null ? parts : $.grep(common, function (p) {
                return $.inArray(p, parts) !== -1;
            });
        });
        $.each(series, function (i, s) {
            if (s.mxbench_label === null) {
                return;
            }
            if (colors && colors.length) {
                s.color = colors[$.inArray(s.mxbench_label, labels) % colors.length];
            }
            if (labels.length > 1) {
                s.label = $.map($.grep(s.mxbench_label.split('; '), function (p) {
                    return $.inArray(p, common) === -1;
                }), legend_part).join('; ');
            } else {
                s.label = $.map(s.mxbench_label.split('; '), legend_part).join('; ');
            }
        });
        return common || [];
    }

    /* asv's raw keys, as a reader names them: "env-MXNET_FLAVOR-cpu-openblas" -> the flavor,
       "python-3.11" -> "Python 3.11", "numpy-1.23.5" -> "numpy 1.23.5". */
    function legend_part(part) {
        var flavor = /^env-MXNET_FLAVOR-(.*)$/.exec(part);
        if (flavor) {
            return flavor[1];
        }
        var version = /^(python|numpy)-([0-9].*)$/.exec(part);
        return version ? (version[1] === 'python' ? 'Python ' : 'numpy ') + version[2] : part;
    }

    function tidy_y_axis(options) {
        var benchmark = current_benchmark();
        var yaxis = options && options.yaxis;
        var units = benchmark && units_of(benchmark.unit);
        if (!yaxis || !units) {
            return;
        }
        var log = !!yaxis.transform;
        if (yaxis.axisLabel === 'relative' || (log && !yaxis.axisLabel)) {
            return;  /* the reference scale: ratios, not values */
        }
        yaxis.axisLabel = '';  /* the ticks carry the unit */
        if (log) {
            yaxis.tickFormatter = function (v) { return human(v, benchmark.unit); };
        } else {
            yaxis.ticks = unit_ticks(units);
            yaxis.tickFormatter = function (v) { return human(v, benchmark.unit); };
        }
    }

    /* asv's seven colours, then more: past the end of its list the lines would repeat one. */
    var PALETTE_EXTRA = ['#17BECF', '#8C564B', '#E377C2', '#BCBD22', '#2CA02C', '#1F3F8F',
                         '#D62728', '#7F7F00'];

    function wrap_plot() {
        var plot = $.plot;
        if (!plot || plot.mxbench_wrapped) {
            return;
        }
        var wrapped = function (placeholder, data, options) {
            var id = $(placeholder).attr('id');
            if (id === 'main-graph' || id === 'overview') {
                var colors = ((options && options.colors) || ($.asv && $.asv.colors) || [])
                    .concat(PALETTE_EXTRA);
                data = join_pythons(data);  /* section 12 */
                var common = tidy_series(data, colors);
                tidy_joined(data);
                if (id === 'main-graph') {
                    tidy_y_axis(options);
                    pad_y_axis(options);
                    if (options) {
                        add_graph_layers(options);
                    }
                    if (options && options.xaxis && options.xaxis.axisLabel === 'commits') {
                        options.xaxis.axisLabel = 'release';  /* each ladder commit is one */
                    }
                    $(placeholder).attr('data-mxbench-common', common.join('; '));
                }
            }
            return plot.call(this, placeholder, data, options);
        };
        $.extend(wrapped, plot);
        wrapped.mxbench_wrapped = true;
        $.plot = wrapped;
    }

    /* The grid leaves out the benchmarks with no measured value (window.MXBENCH_NO_DATA,
       written by `mxbench publish`; the benchmark list still has them), and a section with
       none left: the front page no longer opens on a title over empty boxes. */
    function tidy_grid() {
        var no_data = {};
        $.each(window.MXBENCH_NO_DATA || [], function (i, name) {
            no_data['#' + name] = true;
        });
        $('#summarygrid-display .benchmark-group').each(function () {
            var group = $(this);
            var boxes = group.find('.benchmark-container');
            var empty = boxes.filter(function () {
                return no_data.hasOwnProperty($(this).attr('href'));
            });
            empty.addClass('mxbench-no-data');
            group.toggleClass('mxbench-no-data', boxes.length > 0 &&
                              empty.length === boxes.length);
        });
        /* The operators' history first: asv orders sections by name, and bench_baselines,
           first by name, holds one release (a single point in each box). */
        var grid = $('#summarygrid-display');
        var history = $('#group-bench_operators');
        if (history.length && !history.is(grid.children('.benchmark-group').first())) {
            grid.prepend(history);
            /* asv draws a box when a scroll brings it into view, and it drew the boxes that
               were in view before the move: the ones in view now wait for a scroll. */
            setTimeout(function () { $(window).trigger('scroll'); }, 0);
        }
    }

    /* --- 6. release names for commits --------------------------------------------------------- */
    function release_of_hash() {
        var json = $.asv && $.asv.main_json;
        var names = {};
        if (!json || !json.tags) {
            return names;
        }
        $.each(json.tags, function (tag, revision) {
            var hash = json.revision_to_hash[revision];
            if (hash) {
                names[hash] = tag;
            }
        });
        return names;
    }

    /* "e35afd14" -> "2.0.0"; a hash prefix that names no release stays as it is. */
    function release_name(prefix) {
        var names = release_of_hash();
        var found = null;
        $.each(names, function (hash, tag) {
            if (prefix && hash.indexOf(prefix) === 0) {
                found = tag;
                return false;
            }
        });
        return found === null ? prefix : found;
    }

    /* "a..b", "a^!", "a" -> "1.6.0..1.7.0.post1", ... */
    function release_range(text) {
        return String(text).replace(/[0-9a-f]{6,40}/g, function (hash) {
            return release_name(hash);
        });
    }

    function tidy_commit_box() {
        var box = $('#range');
        if (!box.length) {
            return;
        }
        var value = box.val();
        var named = release_range(value);
        if (named !== value) {
            box.attr('title', value).val(named);
        }
    }
    /* The release whose ladder commit comes right before `head`'s (asv writes a range of one
       commit, a release and its ladder parent, as the later commit alone). */
    function release_before(head) {
        var tags = $.asv.main_json.tags || {};
        var revision = tags[head], best = null;
        $.each(tags, function (tag, rev) {
            if (rev < revision && (best === null || rev > tags[best])) {
                best = tag;
            }
        });
        return best;
    }

    /* A range of asv's `commits` address parameter ("a-b" or "b") as releases: {base, head}. */
    function range_releases(range) {
        var parts = String(range).split('-');
        var head = release_name(parts[parts.length - 1]);
        var base = parts.length > 1 ? release_name(parts[0]) : release_before(head);
        return {base: base, head: head};
    }

    /* The release at a revision of index.json, or null. */
    function release_at(revision) {
        var json = $.asv && $.asv.main_json;
        if (!json || !json.tags) {
            return null;
        }
        if (!json.mxbench_release_at) {
            json.mxbench_release_at = {};
            $.each(json.tags, function (tag, rev) {
                json.mxbench_release_at[rev] = tag;
            });
        }
        var found = json.mxbench_release_at[revision];
        return found === undefined ? null : found;
    }

    function has(object, key) {
        return object && Object.prototype.hasOwnProperty.call(object, key);
    }

    /* asv names a commit by its hash wherever it prints one (the graph's tooltips, the commit
       selector, the list's "Changed at"); every commit of the ladder is a release, so asv
       gets the release's name, and takes a release's name back where it reads a commit. */
    function install_release_names() {
        var hash_of = $.asv.get_commit_hash, revision_of = $.asv.get_revision;
        $.asv.get_commit_hash = function (revision) {
            return release_at(revision) || hash_of(revision);
        };
        $.asv.get_revision = function (name) {
            var tags = ($.asv.main_json && $.asv.main_json.tags) || {};
            return has(tags, name) ? String(tags[name]) : revision_of(name);
        };
    }

    /* The ladder's full hash of a release (for asv's `commits` parameter), or null. */
    function hash_of_release(release) {
        var json = $.asv.main_json;
        return has(json.tags, release) ? json.revision_to_hash[json.tags[release]] || null : null;
    }

    /* --- 8. changes: one ratio per change ------------------------------------------------------ */
    var CHANGES_FILE = 'changes.json';
    var STATE_ORDER = ['confirmed', 'inconclusive', 'not yet confirmed', 'refuted'];
    var UNCONFIRMED = 'not yet confirmed';
    var changes_loaded = null;

    /* The history's ratio of a change: the value recorded at the later release over the one
       at the earlier (generated-reports/CHANGES.md's "history ratio": the same recordings). The only
       place the site computes it. */
    function history_ratio(change) {
        return (change.before > 0 && change.after !== null) ? change.after / change.before : null;
    }

    /* mxbench.core.formatting.ratio_text: two decimals, two significant digits below 0.1. */
    function ratio_text(ratio) {
        if (ratio === null || ratio === undefined || !isFinite(ratio)) {
            return 'n/a';
        }
        return (ratio >= 0.1 ? ratio.toFixed(2) : String(parseFloat(ratio.toPrecision(2)))) + 'x';
    }

    function interval_text(change) {
        return change.conf_ratio === null ? '' : ratio_text(change.conf_ratio) + ' [' +
            ratio_text(change.conf_low).slice(0, -1) + ', ' +
            ratio_text(change.conf_high).slice(0, -1) + ']';
    }

    /* changes.json (mxbench/site/change_data.py) as objects, each with its ratio, state and
       the text the search matches. */
    function load_changes() {
        if (changes_loaded === null) {
            changes_loaded = $.Deferred();
            $.ajax({url: CHANGES_FILE + '?timestamp=' + $.asv.main_timestamp,
                    dataType: 'json', cache: true})
                .done(function (data) {
                    var fields = data.fields;
                    changes_loaded.resolve($.map(data.changes, function (row, n) {
                        var change = {n: n};
                        $.each(fields, function (i, field) { change[field] = row[i]; });
                        change.benchmark = change.point.replace(/\(.*$/, '');
                        change.ratio = history_ratio(change);
                        change.state = change.state || UNCONFIRMED;
                        change.size = change.ratio > 0 ? Math.abs(Math.log(change.ratio)) : 0;
                        change.search = [change.point, change.machine, change.flavor,
                                         'python ' + change.python, change.base, change.head,
                                         change.state].join(' ').toLowerCase();
                        return change;
                    }));
                })
                .fail(function () { changes_loaded.resolve([]); });
        }
        return changes_loaded.promise();
    }

    /* Confirmed first, then inconclusive, not yet confirmed, refuted; larger changes first. */
    function change_order(a, b) {
        return (STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state)) ||
            (b.size - a.size) || (a.n - b.n);
    }

    /* The address of a change's page, and of its graph with the two releases highlighted. */
    function change_url(change) {
        return $.asv.format_hash_string({location: ['change'], params: {
            point: [change.point], machine: [change.machine], flavor: [change.flavor],
            python: [change.python], base: [change.base], head: [change.head]}});
    }

    function graph_url(change, benchmark) {
        var params = {};
        $.each(change.params || {}, function (key, value) { params[key] = [value]; });
        var bench = $.asv.main_json.benchmarks[benchmark || change.benchmark];
        if (bench && change.param_idx !== null && !benchmark) {
            $.each($.asv.param_selection_from_flat_idx(bench.params, change.param_idx).slice(1),
                   function (i, values) {
                       params['p-' + bench.param_names[i]] = [bench.params[i][values[0]]];
                   });
        }
        var a = hash_of_release(change.base), b = hash_of_release(change.head);
        if (a && b && !benchmark) {
            params.commits = [a + '-' + b];
        }
        return $.asv.format_hash_string({location: [benchmark || change.benchmark],
                                         params: params});
    }

    function verdict_mark(change) {
        var mark = $('<span class="mxbench-verdict"/>').attr('data-state', change.state)
            .addClass('mxbench-verdict-' + change.state.replace(/ /g, '-'));
        if (change.state !== UNCONFIRMED) {
            mark.text(change.state + ' ' + interval_text(change)).attr(
                'title', 'confirmation run ' + change.base + ' \u2192 ' + change.head +
                    ' (interleaved): ratio ' + interval_text(change) + ' (95 % interval)');
        } else {
            mark.text(change.state).attr('title', 'measure it again, interleaved: ' +
                                         confirm_command(change));
            mark.attr('data-command', confirm_command(change));
        }
        return mark;
    }

    function confirm_command(change) {
        return 'python -m mxbench confirm ' + change.base + ' ' + change.head +
            ' --flavor ' + change.flavor;
    }

    function find_command(change) {
        return 'python -m mxbench find ' + change.base + '..' + change.head + ' ' +
            change.benchmark + ' --flavor ' + change.flavor + (change.ratio < 1 ? ' --invert' : '');
    }

    /* --- 9. the regressions page: precomputed, rendered a page of rows at a time -------------- */
    var ROWS_SHOWN = 100;  /* rows drawn at first; "more" draws the next as many */

    function regression_row(change) {
        var row = $('<tr/>').attr('data-state', change.state);
        row.append($('<td class="mxbench-point"/>').append(
            $('<a/>').attr('href', change_url(change)).text(change.point)));
        row.append($('<td/>').text(change.machine));
        row.append($('<td/>').text(change.flavor + (change.python ? ' py' + change.python : '')));
        row.append($('<td class="mxbench-releases"/>').text(change.base + ' \u2192 ' +
                                                          change.head));
        row.append($('<td class="mxbench-ratio"/>').text(ratio_text(change.ratio)).attr(
            'title', human(change.before, change.unit) + ' \u2192 ' +
                human(change.after, change.unit) + ' (the values recorded at the two releases)'));
        row.append($('<td/>').append(verdict_mark(change)));
        return row;
    }

    function show_regressions(params) {
        $('#regressions-display').show();
        $('#title').text('Regressions');
        var body = $('#regressions-body').empty().addClass('mxbench-regressions');
        body.append($('<p class="mxbench-loading"/>').text('Loading the changes\u2026'));
        load_changes().then(function (changes) {
            /* asv's regressions, and the slow-downs only a confirmation run measured */
            var sorted = $.grep(changes, function (c) {
                return c.flagged || c.ratio > 1;
            }).sort(change_order);
            var tally = {};
            $.each(sorted, function (i, c) { tally[c.state] = (tally[c.state] || 0) + 1; });
            var summary = $('<p id="mxbench-verdict-summary"/>').text(
                sorted.length + ' regressions shown: ' + $.map(STATE_ORDER, function (s) {
                    return (tally[s] || 0) + ' ' + s;
                }).join(', ') + '. Sorted by verdict, then size; ratio = the value at the ' +
                'later release / at the earlier (the history\'s); the confirmation\'s own ' +
                'ratio and 95 % interval beside it. Each row opens its change page.');
            var search = $('<input type="search" id="mxbench-search" class="form-control" ' +
                           'placeholder="Search: operator, release, flavor, machine, verdict"/>');
            var table = $('<table class="table table-hover mxbench-regression-table"/>').append(
                '<thead><tr><th>Benchmark</th><th>Machine</th><th>Flavor</th><th>Releases</th>' +
                '<th title="history: value at the later release / at the earlier">Ratio</th>' +
                '<th>Confirmation (ratio, 95 % interval)</th></tr></thead>');
            var tbody = $('<tbody/>').appendTo(table);
            var more = $('<button class="btn btn-default" id="mxbench-more"/>');
            var count = $('<p id="mxbench-match-count"/>');
            var matching = sorted, shown = 0;

            function draw_more() {
                var rows = [];
                $.each(matching.slice(shown, shown + ROWS_SHOWN), function (i, change) {
                    rows.push(regression_row(change)[0]);
                });
                tbody.append(rows);
                shown += rows.length;
                more.toggle(shown < matching.length).text(
                    'Show ' + Math.min(ROWS_SHOWN, matching.length - shown) + ' more of ' +
                        (matching.length - shown));
                count.text(matching.length + ' of ' + sorted.length + ' changes match, ' +
                           shown + ' shown');
            }

            function filter() {
                var words = $.trim(search.val().toLowerCase()).split(/\s+/);
                matching = $.grep(sorted, function (c) {
                    return $.grep(words, function (w) {
                        return w && c.search.indexOf(w) === -1;
                    }).length === 0;
                });
                tbody.empty();
                shown = 0;
                draw_more();
            }

            search.on('input', filter);
            more.on('click', draw_more);
            body.empty().append(summary, search, count, table, more);
            if (params && params.q) {
                search.val(params.q[0]);
            }
            filter();
            if (window.performance && performance.mark) {
                performance.mark('mxbench-regressions-shown');  /* read by tests/test_site.py */
            }
        });
    }

    /* --- 10. the change page: #change?point=&machine=&flavor=&python=&base=&head= ------------ */
    function change_block(change) {
        var block = $('<div class="mxbench-change"/>');
        var dl = $('<dl class="dl-horizontal"/>');
        function item(term, value) {  /* a string is text: machine names come from machine.json */
            dl.append($('<dt/>').text(term), $('<dd/>').append(
                typeof value === 'string' ? document.createTextNode(value) : value));
        }
        block.append($('<h3/>').text(change.point));
        item('releases', $('<strong/>').text(change.base + ' \u2192 ' + change.head));
        item('where', change.flavor + ', Python ' + change.python + ', machine ' +
             change.machine);
        item('history', $('<span class="mxbench-history-ratio"/>').text(
            ratio_text(change.ratio)).add($('<span/>').text(
                '  (' + human(change.before, change.unit) + ' \u2192 ' +
                    human(change.after, change.unit) + ': the values recorded at the two ' +
                    'releases, later / earlier)')));
        item('confirmation', verdict_mark(change).add($('<span/>').text(
            change.state === UNCONFIRMED ? '  no confirmation run measured this pair yet'
                : '  (the confirmation run\'s ratio: both releases measured again, ' +
                  'interleaved; 95 % interval)')));
        item('instructions', change.count_before && change.count_after
             ? change.count_before + ' \u2192 ' + change.count_after + ' (' +
               ratio_text(change.count_after / change.count_before) + ')'
             : 'not recorded for both releases');
        item('noise', change.noise
             ? 'up to ' + ratio_text(change.noise) + ' between recordings of one build on ' +
               'this machine (generated-reports/noise): a ratio within that is not told from noise'
             : 'not measured for this point');
        var count_bench = 'bench_instructions.' + change.benchmark.split('.')[1] + '.track_' +
            change.benchmark.split('.')[2].replace(/^time_/, '');
        var links = $('<span/>').append($('<a class="mxbench-graph-link"/>').attr(
            'href', graph_url(change)).text('the timing graph'));
        if ($.asv.main_json.benchmarks[count_bench]) {
            links.append(', ', $('<a class="mxbench-count-link"/>').attr(
                'href', graph_url(change, count_bench)).text('the instruction-count graph'));
        }
        item('graphs', links);
        item('commands', $('<code/>').text(confirm_command(change)).add('<br/>').add(
            $('<code/>').text(find_command(change))));
        return block.append(dl);
    }

    function show_change(params) {
        $('#regressions-display').show();
        $('#title').text('Change');
        var body = $('#regressions-body').empty().addClass('mxbench-regressions');
        var want = {};
        $.each(['point', 'benchmark', 'machine', 'flavor', 'python', 'base', 'head'],
               function (i, key) {
                   if (params[key] && params[key][0]) {
                       want[key] = params[key][0];
                   }
               });
        if (want.head && /^[0-9a-f]{6,40}$/.test(want.head)) {
            want.head = release_name(want.head);
        }
        load_changes().then(function (changes) {
            var found = $.grep(changes, function (c) {
                var ok = true;
                $.each(want, function (key, value) {
                    ok = ok && c[key] === value;
                });
                return ok;
            }).sort(change_order);
            body.empty();
            var what = $.map(want, function (v, k) { return k + ' ' + v; }).join(', ');
            if (!found.length) {
                body.append($('<p class="mxbench-no-change"/>').text(
                    'No change is flagged for ' + what + ' (asv\'s step detection found none ' +
                    'there).'), $('<p/>').append($('<a href="#regressions"/>').text(
                        'Every change')));
                return;
            }
            if (found.length > 1) {
                body.append($('<p/>').text(found.length + ' changes for ' + what + ':'));
            }
            $.each(found, function (i, change) { body.append(change_block(change)); });
        });
    }

    /* A click on a graph point: the changes of that benchmark into that release (asv opened
       show_commit_url + hash, `#<hash>`: no page). */
    function bind_point_click() {
        var awaiting_reference = false;  /* asv's "reference" button: the next click picks it */
        $('#reference').on('click', function () {  /* after asv's own handler */
            awaiting_reference = $('.popover').length > 0;
        });
        var open = window.open;
        window.open = function (url) {
            /* asv's click on a point: show_commit_url + a commit, no page (the handler below
               goes to the change page instead) */
            var commit = String(url).slice(String($.asv.main_json.show_commit_url).length);
            if (String(url).indexOf($.asv.main_json.show_commit_url) === 0 &&
                    (has($.asv.main_json.tags, commit) || /^[0-9a-f]{6,40}$/.test(commit))) {
                return null;
            }
            return open.apply(window, arguments);
        };
        $('#main-graph').on('plotclick', function (event, pos, item) {
            var benchmark = current_benchmark();
            if (awaiting_reference) {
                awaiting_reference = false;
                return;
            }
            var release = item ? release_at(item.datapoint[0]) : null;
            if (benchmark && release !== null) {
                window.location.hash = $.asv.format_hash_string({location: ['change'], params: {
                    benchmark: [benchmark.name], head: [release]}});
            }
        });
    }

    /* The list's "Changed at" links (show_commit_url + a commit: no page) go where the
       change column's link of the row goes: the graph with the change highlighted. */
    function tidy_list() {
        $('#summarylist-display td.change-date a').each(function () {
            var link = $(this);
            var target = link.closest('tr').find('td').eq(2).find('a').attr('href');
            if (target && link.attr('href') !== target) {
                link.attr('href', target);
            }
        });
    }

    /* --- 11. the about block, the history's machine ------------------------------------------ */
    /* window.MXBENCH_ABOUT (mxbench/about.js, written by mxbench/site/about.py from the
       machines' records and env_matrix): each machine of the site, the flavors, the build. */
    var ROLE_TEXT = {
        'history': 'the history: every release, both CPU flavors (results/)',
        'another CPU kind\'s own record': 'another CPU kind\'s own record (results-cpu-kinds/)',
        'archived': 'archived: the history recorded before (results-archive/)',
        'neutral baselines': 'the neutral baselines\' machine (results-baselines/)'
    };

    function about_data() {
        return window.MXBENCH_ABOUT || null;
    }

    /* The benchmark list opened with no machine chosen: the history's (asv's first, by name,
       was the archived one, with only the baselines' rows). */
    function list_hash(hash) {
        var about = about_data();
        var location = (hash || '').replace(/^#\/?/, '');
        var parts = location.split('?');
        if (!about || !about.history || parts[0] !== 'summarylist' ||
                /(^|&)machine=/.test(parts[1] || '')) {
            return null;
        }
        return '#summarylist?' + (parts[1] ? parts[1] + '&' : '') + 'machine=' +
            encodeURIComponent(about.history);
    }

    /* "AMD EPYC: AuthenticAMD family 25 model 17, avx512 (25 of 60 recordings; the others
       name no CPU)": every kind the conditions logs name, with how many recordings each. */
    function cpu_text(machine) {
        var named = 0;
        var kinds = $.map(machine.cpus || [], function (cpu) {
            named += cpu.recordings;
            return cpu.vendor + ' family ' + cpu.family + ' model ' + cpu.model +
                (cpu.vector ? ', ' + cpu.vector : '') + (machine.cpus.length > 1 ||
                    named < machine.recordings ? ' (' + cpu.recordings + ' of ' +
                    machine.recordings + ' recordings)' : '');
        });
        var recorded = kinds.length ? kinds.join('; ') : 'not recorded';
        if (kinds.length && named < machine.recordings) {
            recorded += '; the other ' + (machine.recordings - named) + ' name no CPU';
        }
        return (machine.cpu_name ? machine.cpu_name + ': ' : '') + recorded;
    }

    function role_text(machine, history) {
        var text = ROLE_TEXT[machine.role] || 'recorded for this site';
        if (machine.role !== 'neutral baselines' &&
                $.inArray('results-baselines', machine.folders || []) !== -1) {
            text += '; the neutral baselines were recorded on it (results-baselines/)';
        }
        return machine.name === history ? text + '. The graphs and the list open on it.' : text;
    }

    function flavor_text(flavor) {
        var text = flavor.summary + '. Packages: ' + flavor.packages.join(', ') + '. A wheel for ' +
            flavor.built + ' releases, ' + flavor.first + ' to ' + flavor.last + '.';
        if (flavor.stops) {
            text += ' Nothing after ' + flavor.stops.after + ' (' + flavor.stops.releases +
                ' releases): no wheel (' + flavor.stops.reason + ').';
        }
        return text;
    }

    function about_block() {
        var about = about_data();
        if (!about) {
            return null;
        }
        var block = $('<div id="mxbench-about" class="mxbench-about"/>');
        block.append($('<h3/>').text('About this site'), $('<p class="mxbench-built"/>').text(
            'Built ' + about.built + ' by python -m mxbench publish, from the records below.'));
        var table = $('<table class="table table-condensed mxbench-machines"/>').append(
            '<thead><tr><th>Machine</th><th>What it is</th><th>CPU (as recorded)</th>' +
            '<th>Cores</th><th>Memory</th></tr></thead>');
        var body = $('<tbody/>').appendTo(table);
        $.each(about.machines, function (i, machine) {
            body.append($('<tr/>').attr('data-machine', machine.name).attr('data-role',
                                                                           machine.role).append(
                $('<td/>').append($('<code/>').text(machine.name)),
                $('<td/>').text(role_text(machine, about.history)),
                $('<td class="mxbench-cpu"/>').text(cpu_text(machine)),
                $('<td/>').text(machine.cores === null ? 'n/a' : String(machine.cores)),
                $('<td/>').text(human(machine.memory_bytes, 'bytes'))));
        });
        var flavors = $('<ul class="mxbench-flavors"/>');
        $.each(about.flavors, function (i, flavor) {
            flavors.append($('<li/>').attr('data-flavor', flavor.name).append(
                $('<strong/>').text(flavor.name), document.createTextNode(': ' +
                                                                          flavor_text(flavor))));
        });
        return block.append(table, $('<p/>').text('Flavors (env_matrix):'), flavors);
    }

    function show_about() {
        $('#regressions-display').show();
        $('#title').text('About this site');
        $('#regressions-body').empty().addClass('mxbench-regressions').append(about_block());
    }

    /* The grid's page opens with the about block above the sections. */
    function place_about_on_grid() {
        var grid = $('#summarygrid-display');
        if (!grid.length || !about_data()) {
            return;
        }
        var block = grid.children('#mxbench-about');
        if (!block.length) {
            block = about_block();
        }
        if (!block.is(grid.children().first())) {
            grid.prepend(block);
        }
    }

    /* --- 12. graphs: one line per flavor across Pythons, noise bands, verdicts ---------------- */
    var graph_sources = typeof WeakMap === 'function' ? new WeakMap() : null;

    /* The graph file each series comes from, and its benchmark parameters: asv loads a file
       (load_graph_data) and cuts a series per parameter combination (filter_graph_data). */
    function track_graph_sources() {
        var load = $.asv.load_graph_data, filter = $.asv.filter_graph_data;
        if (!graph_sources || !load || !filter) {
            return;
        }
        $.asv.load_graph_data = function (url) {
            return load.apply(this, arguments).done(function (data) {
                if (data && typeof data === 'object') {
                    graph_sources.set(data, url);
                }
            });
        };
        $.asv.filter_graph_data = function (raw, x_axis, indices) {
            var series = filter.apply(this, arguments);
            if (series && x_axis === 0 && graph_sources.has(raw)) {
                series.mxbench_source = {url: graph_sources.get(raw), indices: indices};
            }
            return series;
        };
    }

    /* {machine, flavor, python} of a graph file's path (asv: one "key-value" folder each). */
    function source_params(url) {
        var out = {};
        $.each(String(url).split('/'), function (i, part) {
            var m = /^(machine|python)-(.+)$/.exec(part) ||
                /^env-MXNET_FLAVOR-(.+)$/.exec(part);
            if (m && m.length === 3) {
                out[m[1]] = m[2];
            } else if (m) {
                out.flavor = m[1];
            }
        });
        return out;
    }

    /* asv's name of the point a series draws: "bench.Class.method('medium', 'float32')". */
    function point_name(benchmark, indices) {
        var params = benchmark.params || [];
        if (!params.length) {
            return benchmark.name;
        }
        return benchmark.name + '(' + $.map(params, function (values, k) {
            return values[indices[k + 1]];
        }).join(', ') + ')';
    }

    function series_point(s, benchmark) {
        var source = s.data && s.data.mxbench_source;
        if (!source || !benchmark) {
            return null;
        }
        return $.extend(source_params(source.url), {point: point_name(benchmark,
                                                                      source.indices)});
    }

    function is_python_part(part) {
        return /^(python|numpy)-/.test(part);
    }

    /* Series that differ only in Python (1.2.x is recorded in Python 3.7 environments) join
       their flavor's line: the points of the Python with fewer of them go into the line of
       the other, and stay drawn apart as filled markers with a legend entry of their own. */
    function raw_label(s) {
        return s && typeof s === 'object' && !$.isArray(s)
            ? (s.mxbench_label !== undefined ? s.mxbench_label : s.label) : undefined;
    }

    function join_pythons(data) {
        var groups = {}, order = [];
        $.each(data || [], function (i, s) {
            var label = raw_label(s);
            if (typeof label !== 'string' || !/(^|; )python-/.test(label)) {
                return;
            }
            var key = $.grep(label.split('; '), function (p) { return !is_python_part(p); })
                .join('; ');
            if (!groups[key]) {
                groups[key] = [];
                order.push(key);
            }
            groups[key].push(s);
        });
        var out = $.grep(data || [], function (s) {
            var label = raw_label(s);
            return !(typeof label === 'string' && /(^|; )python-/.test(label));
        });
        $.each(order, function (i, key) {
            out = out.concat(joined_series(key, groups[key]));
        });
        return out;
    }

    function measured_count(s) {
        return $.grep(s.data || [], function (p) { return p && p[1] !== null; }).length;
    }

    function joined_series(key, members) {
        if (members.length < 2) {
            return members;
        }
        var main = members.slice().sort(function (a, b) {
            return measured_count(b) - measured_count(a);
        })[0];
        var by_x = {};  /* the line's own points first; the other Pythons' where it has none */
        $.each([main].concat($.grep(members, function (s) { return s !== main; })),
               function (i, s) {
                   $.each(s.data || [], function (j, p) {
                       if (p && (!has(by_x, p[0]) || by_x[p[0]][1] === null)) {
                           by_x[p[0]] = [p[0], p[1]];
                       }
                   });
               });
        var merged = $.map(by_x, function (p) { return [p]; }).sort(function (a, b) {
            return a[0] - b[0];
        });
        merged.mxbench_source = main.data.mxbench_source;
        var line = $.extend({}, main, {data: merged, label: key || 'every Python'});
        line.mxbench_label = undefined;  /* $.extend skips undefined: tidy_series sets it */
        var out = [line];
        $.each(members, function (i, s) {
            if (s !== main) {
                var python = $.grep(raw_label(s).split('; '), function (p) {
                    return /^python-/.test(p);
                })[0];
                var markers = $.extend({}, s, {label: (key ? key + '; ' : '') + python,
                                               mxbench_joined_to: line, lines: {show: false},
                                               points: {show: true, radius: 4, fill: true}});
                markers.mxbench_label = undefined;
                out.push(markers);
            }
        });
        return out;
    }

    /* After the colours are given: a joined Python's markers in its line's colour, named with
       the releases they hold. */
    function tidy_joined(data) {
        $.each(data, function (i, s) {
            var line = s.mxbench_joined_to;
            if (!line) {
                return;
            }
            s.color = line.color;
            s.points.fillColor = line.color;
            var releases = $.map($.grep(s.data, function (p) { return p && p[1] !== null; }),
                                 function (p) { return release_at(p[0]); });
            s.label += ' (' + (releases.length ? releases.join(', ') + ', ' : '') +
                'on the ' + (line.label || 'same') + ' line)';
        });
    }

    /* The noise of the point a series draws, where generated-reports/noise has it for the series'
       machine, flavor and Python (window.MXBENCH_NOISE, mxbench/noise.js). */
    function series_noise(s, benchmark) {
        var where = series_point(s, benchmark);
        var table = where && (window.MXBENCH_NOISE || {})[where.machine];
        if (!table || table.flavor !== where.flavor || table.python !== where.python) {
            return null;
        }
        return has(table.points, where.point) ? table.points[where.point] : null;
    }

    /* The confirmed changes of the page's benchmark, by machine|flavor|python|point. */
    var confirmed_changes = null;

    function load_confirmed(redraw) {
        if (confirmed_changes !== null) {
            return;
        }
        confirmed_changes = {};
        load_changes().then(function (changes) {
            $.each(changes, function (i, c) {
                if (c.state === 'confirmed') {
                    var key = [c.machine, c.flavor, c.python, c.point].join('|');
                    (confirmed_changes[key] = confirmed_changes[key] || []).push(c);
                }
            });
            redraw();
        });
    }

    function series_verdicts(s, benchmark) {
        var where = series_point(s, benchmark);
        var found = where && confirmed_changes &&
            confirmed_changes[[where.machine, where.flavor, where.python, where.point].join('|')];
        var tags = $.asv.main_json.tags || {};
        var marks = [];
        $.each(found || [], function (i, change) {
            var x = has(tags, change.head) ? tags[change.head] : null;
            var at = $.grep(s.data, function (p) { return p && p[0] === x && p[1] !== null; })[0];
            if (at) {
                marks.push({x: at[0], y: at[1], head: change.head, base: change.base,
                            text: 'confirmed ' + ratio_text(change.conf_ratio)});
            }
        });
        return marks;
    }

    /* The y range asv sets is the data's own (the lowest and highest markers cut in half on
       a linear axis of counts): a margin around it. */
    function pad_y_axis(options) {
        var y = options && options.yaxis;
        if (!y || y.axisLabel === 'relative' || typeof y.min !== 'number' ||
                typeof y.max !== 'number' || !(y.max > y.min) || y.min === 0) {
            return;
        }
        if (y.transform) {
            var f = Math.pow(y.max / y.min, 0.04);
            y.min /= f;
            y.max *= f;
        } else {
            var pad = (y.max - y.min) * 0.05;
            y.min = y.min >= 0 ? Math.max(0, y.min - pad) : y.min - pad;
            y.max += pad;
        }
    }

    function canvas_xy(plot, x, y) {
        var axes = plot.getAxes(), offset = plot.getPlotOffset();
        return [offset.left + axes.xaxis.p2c(x), offset.top + axes.yaxis.p2c(y)];
    }

    /* Behind each series with a noise figure n: a band from value / sqrt(n) to value * sqrt(n),
       n wide, so two releases whose bands do not overlap differ by more than the noise. */
    function draw_noise_bands(plot, ctx) {
        var layers = {bands: [], verdicts: []};
        var benchmark = current_benchmark();
        ctx.save();
        var offset = plot.getPlotOffset();
        ctx.beginPath();
        ctx.rect(offset.left, offset.top, plot.width(), plot.height());
        ctx.clip();
        $.each(plot.getData(), function (i, s) {
            var noise = series_noise(s, benchmark);
            var points = $.grep(s.data, function (p) { return p && p[1] !== null && p[1] > 0; });
            if (!noise || s.mxbench_joined_to || points.length === 0) {
                return;
            }
            var half = Math.sqrt(noise), upper = [], lower = [];
            $.each(points, function (j, p) {
                upper.push(canvas_xy(plot, p[0], p[1] * half));
                lower.unshift(canvas_xy(plot, p[0], p[1] / half));
            });
            ctx.beginPath();
            $.each(upper.concat(lower), function (j, xy) {
                ctx[j ? 'lineTo' : 'moveTo'](xy[0], xy[1]);
            });
            ctx.closePath();
            ctx.fillStyle = $.color.parse(s.color).scale('a', 0.15).toString();
            ctx.fill();
            layers.bands.push({label: s.label, noise: noise, points: points.length});
        });
        if (layers.bands.length) {  /* what the shading is, in the plot's top right corner */
            ctx.font = '11px sans-serif';
            ctx.textAlign = 'right';
            ctx.fillStyle = '#555';
            ctx.fillText('shaded: the point\'s noise between recordings of one build (A/A, ' +
                         'generated-reports/noise): ' + $.map(layers.bands, function (b) {
                             return ratio_text(b.noise);
                         }).join(', ') + ' wide', offset.left + plot.width() - 6,
                         offset.top + 14);
        }
        ctx.restore();
        $(plot.getPlaceholder()).data('mxbench-layers', layers);
    }

    /* Over each confirmed change's later release: a mark and the confirmation's ratio. */
    function draw_verdicts(plot, ctx) {
        var benchmark = current_benchmark();
        var layers = $(plot.getPlaceholder()).data('mxbench-layers') || {bands: []};
        layers.verdicts = [];
        ctx.save();
        ctx.font = 'bold 11px sans-serif';
        $.each(plot.getData(), function (i, s) {
            $.each(series_verdicts(s, benchmark), function (j, mark) {
                var xy = canvas_xy(plot, mark.x, mark.y);
                ctx.beginPath();
                ctx.arc(xy[0], xy[1], 7, 0, 2 * Math.PI);
                ctx.lineWidth = 2;
                ctx.strokeStyle = '#a94442';
                ctx.stroke();
                ctx.fillStyle = '#a94442';
                ctx.fillText(mark.text, xy[0] + 9, xy[1] - 6);
                layers.verdicts.push($.extend({label: s.label, left: xy[0], top: xy[1]}, mark));
            });
        });
        ctx.restore();
        $(plot.getPlaceholder()).data('mxbench-layers', layers)
            .attr('data-mxbench-layers', JSON.stringify(layers));
    }

    function add_graph_layers(options) {
        options.hooks = options.hooks || {};
        options.hooks.drawBackground = (options.hooks.drawBackground || []).concat(
            [draw_noise_bands]);
        options.hooks.draw = (options.hooks.draw || []).concat([draw_verdicts]);
        load_confirmed(function () {
            var plot = $('#main-graph').data('plot');
            if (plot) {
                plot.draw();
            }
        });
    }

    if ($) {
        $(function () {  /* after asv's own ready handler, which sets up $.asv */
            wrap_plot();
            if ($.asv) {
                $.asv.pretty_unit = human;
                install_release_names();
                $.asv.register_page('regressions', show_regressions);
                $.asv.register_page('change', show_change);
                $.asv.register_page('about', show_about);
                bind_point_click();
                track_graph_sources();
            }
            var grid = document.getElementById('summarygrid-display');
            if (grid && window.MutationObserver) {
                new MutationObserver(tidy_grid).observe(grid, {childList: true});
                tidy_grid();
                new MutationObserver(place_about_on_grid).observe(grid, {childList: true});
                place_about_on_grid();
            }
            var title = document.getElementById('title');
            if (title && window.MutationObserver) {  /* cut with an ellipsis: the full name */
                new MutationObserver(function () {
                    title.setAttribute('title', title.textContent);
                }).observe(title, {childList: true, characterData: true, subtree: true});
            }
            var list = document.getElementById('summarylist-display');
            if (list && window.MutationObserver) {
                new MutationObserver(tidy_list).observe(list, {childList: true, subtree: true});
            }
        });
    }

    /* --- 13. the grid, drawn as it comes into view ------------------------------------------- */
    /* asv's grid built all 3,500 boxes with two tooltips and a scroll handler each before it
       drew one (2-5 s); this one builds the section shown first (the operators' history) at
       once and the others after it, a section at a time, and draws a box's little graph when
       it comes into view (IntersectionObserver), with asv's markup and plot options. */
    var GRID_PLOT = {series: {lines: {show: true, lineWidth: 2}, shadowSize: 0},
                     grid: {borderWidth: 1, margin: 0, labelMargin: 0, axisMargin: 0,
                            minBorderMargin: 0},
                     xaxis: {ticks: []}, yaxis: {ticks: [], min: 0}, legend: {show: false}};
    var grid_built = false;
    var GRID_SLICE = 120;  /* boxes built at a time: the first screen holds fewer */

    function grid_box(bench, observer, no_data) {
        var box = $('<a class="btn benchmark-container"/>').attr('href', '#' + bench.name);
        var plot = $('<div class="benchmark-plot"/>').attr('id', 'summarygrid-' + bench.name);
        /* HTML, as asv writes it: publish escaped pretty_name (mxbench/site/shown_text.py) */
        box.append($('<div class="benchmark-text"/>').attr('title', bench.name).html(
            bench.pretty_name || bench.name.slice(bench.name.indexOf('.') + 1)), plot);
        plot.data('mxbench-benchmark', bench.name);
        if (no_data[bench.name]) {
            box.addClass('mxbench-no-data');  /* as tidy_grid marks it, before it is shown */
        } else {
            observer.observe(plot[0]);
        }
        return box;
    }

    function draw_grid_box(plot) {
        $.asv.load_graph_data('graphs/summary/' + plot.data('mxbench-benchmark') + '.json')
            .done(function (data) {
                $.plot(plot, [{data: data}], $.extend(true, {colors: $.asv.colors}, GRID_PLOT));
            });
    }

    /* The sections of index.json's benchmarks (by the name's first part), the operators'
       history first. */
    function grid_sections() {
        var sections = {}, order = [];
        $.each($.asv.main_json.benchmarks, function (name, bench) {
            var section = name.slice(0, name.indexOf('.'));
            if (!sections[section]) {
                sections[section] = [];
                order.push(section);
            }
            sections[section].push(bench);
        });
        order.sort(function (a, b) {
            return (b === 'bench_operators') - (a === 'bench_operators');
        });
        return $.map(order, function (section) { return [[section, sections[section]]]; });
    }

    function build_grid() {
        var display = $('#summarygrid-display');
        var observer = new IntersectionObserver(function (entries) {
            $.each(entries, function (i, entry) {
                if (entry.isIntersecting) {
                    observer.unobserve(entry.target);
                    draw_grid_box($(entry.target));
                }
            });
        });
        var no_data = {};
        $.each(window.MXBENCH_NO_DATA || [], function (i, name) { no_data[name] = true; });
        var slices = [];  /* [section, its benchmarks from GRID_SLICE * n] */
        $.each(grid_sections(), function (i, section) {
            for (var n = 0; n < section[1].length; n += GRID_SLICE) {
                slices.push([section[0], section[1].slice(n, n + GRID_SLICE)]);
            }
        });
        function add_slice(n) {
            if (n < slices.length) {
                var group = $('#group-' + slices[n][0]);
                if (!group.length) {
                    group = $('<div class="benchmark-group"/>').attr('id', 'group-' + slices[n][0])
                        .append($('<h1/>').text(slices[n][0])).appendTo(display);
                }
                group.append($.map(slices[n][1], function (bench) {
                    return grid_box(bench, observer, no_data)[0];
                }));
                setTimeout(function () { add_slice(n + 1); }, 0);
            } else {
                tidy_grid();  /* the sections with no box left (their boxes came later) */
                display.attr('data-mxbench-grid', 'built');  /* every box is there (tests) */
            }
        }
        add_slice(0);
    }

    function show_grid() {
        $('#summarygrid-display').show();
        $('#title').text('All benchmarks');
        $('.tooltip').remove();
        if (!grid_built) {
            grid_built = true;
            build_grid();
        }
    }

    if ($) {
        $(function () {  /* after asv's own ready handler, which registered its grid */
            if ($.asv && window.IntersectionObserver) {
                $.asv.register_page('', show_grid);
            }
        });
    }

    /* For tests and the curious. */
    window.mxbenchOverlay = {
        default_hash: default_hash,
        bundle_of: bundle_of,
        tidy_release_labels: tidy_release_labels,
        human: human,
        release_range: release_range,
        range_releases: range_releases,
        tidy_grid: tidy_grid,
        history_ratio: history_ratio,
        ratio_text: ratio_text,
        load_changes: load_changes,
        change_block: change_block,
        about_block: about_block,
        list_hash: list_hash,
        point_name: point_name,
        grid_sections: grid_sections
    };
})();
