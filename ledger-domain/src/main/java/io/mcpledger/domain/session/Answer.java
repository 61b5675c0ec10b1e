package io.mcpledger.domain.session;

/** What a session command answers when it did not throw: a success, a call decision, or an error with its receipt. */
public sealed interface Answer permits SessionAnswer, CallAnswer, ErrorAnswer, ClientAnswer {
}
