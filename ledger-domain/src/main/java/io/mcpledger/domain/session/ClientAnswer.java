package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Receipt;

/** A client stream's command that succeeded: the receipt it appended (or repeats) and the client object C after it. */
public record ClientAnswer(Receipt receipt, ObjectNode client) implements Answer {
}
