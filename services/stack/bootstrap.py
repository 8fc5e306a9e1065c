"""`python -m services.stack.bootstrap`: migrate the database and declare the JetStream streams
and consumers against existing servers (the docker-compose `migrate` job; the launcher does the same)."""

from __future__ import annotations

import asyncio
import logging

from shared.db.migrate import upgrade_to_head
from shared.log_setup import configure_logging
from shared.messaging.streams import declare_at
from shared.settings import CommonSettings

log = logging.getLogger(__name__)


def main() -> None:
    settings = CommonSettings()  # type: ignore[call-arg]  # from the environment
    configure_logging("bootstrap", settings.log_level, settings.log_json)
    upgrade_to_head(settings.database_url)
    asyncio.run(declare_at(settings.nats_url, settings.topology, settings.nats_stream_replicas))
    log.info("database migrated and streams declared", extra={"namespace": settings.nats_namespace})


if __name__ == "__main__":
    main()
