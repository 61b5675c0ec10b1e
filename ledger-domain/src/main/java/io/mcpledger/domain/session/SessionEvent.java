package io.mcpledger.domain.session;

import io.mcpledger.domain.LedgerEvent;

/** An event in one session's stream. */
public interface SessionEvent extends LedgerEvent {
    String sessionId();
}
