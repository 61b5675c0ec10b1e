package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Receipt;

/** A session command that succeeded: the receipt it appended (or repeats) and the session object S after it. */
public record SessionAnswer(Receipt receipt, ObjectNode session) implements Answer {
}
