No host tools are available; do not call `tools.*`.
