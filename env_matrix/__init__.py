"""The MXNet environment matrix: releases, flavors, environments and the release ladder."""
