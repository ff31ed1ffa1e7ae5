"""Dramatiq middleware: each worker process gives its session the nice value the Procfile
started it with, so that it yields to the web process (config/common/priority.py says why)."""

import logging
import os

from dramatiq import Broker, Middleware

from config.common.priority import session_led_by_dramatiq, share_nice_with_session

log = logging.getLogger(__name__)


class YieldToWeb(Middleware):
    def after_process_boot(self, broker: Broker) -> None:
        if not session_led_by_dramatiq(os.getsid(0)):
            return  # a session shared with other programs (a shell's) is left alone
        if (nice := share_nice_with_session()) is not None:
            log.info("this worker's session runs at nice %d (its autogroup)", nice)
