package io.mcpledger.domain.session;

/** A command addressed to one session's stream; lets a dispatcher route it without reflection. */
public interface SessionCommand {
    String sessionId();
}
