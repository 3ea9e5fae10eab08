"""The paper layer: one module per paper reproduces its items; the published values and the
report that puts them beside ours."""
