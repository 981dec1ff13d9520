#!/bin/sh
# MinIO's `server DIR [--console-address ADDR]`, served by s3rver on MinIO's port 9000 (there is no
# console); any other command runs as given.
set -eu
if [ "${1:-}" != server ]; then
  exec "$@"
fi
exec s3rver --directory "${2:?usage: server DIR}" --address 0.0.0.0 --port 9000 --no-vhost-buckets
