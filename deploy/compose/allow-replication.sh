#!/bin/sh
# docker-compose.yml mounts this into postgres' /docker-entrypoint-initdb.d: it runs once, when the data
# folder is created, and lets the ha profile's pg-standby connect for streaming replication.
# (A data folder created before this was mounted needs the same line added by hand.)
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
