package io.mcpledger.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** One page of a session listing; {@code next} is the id to pass as {@code after}, or null at the end. */
public record SessionPage(List<ObjectNode> sessions, String next) {
}
