"""rdmabench's tools as one package: paths (the source tree, the build and
the binaries), pair (the one server/client pair runner), lab (the one
"run this inside the soft-RDMA lab" helper), and one module per tool. The
entry points in tools/ and tools/dev/ are a few lines that import these."""
