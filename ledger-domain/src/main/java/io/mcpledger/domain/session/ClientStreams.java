package io.mcpledger.domain.session;

import io.mcpledger.domain.crypto.Hex;

/**
 * How a client stream (contract section 15) is named where streams of every kind share one namespace (Axon's aggregate
 * identifiers, the log's stream links): {@code client:} and its tokenRef, so it never meets the principal stream of the
 * same tokenRef, whose name is the bare tokenRef.
 */
public final class ClientStreams {
    private static final String PREFIX = "client:";

    private ClientStreams() {
    }

    /** The stream name of the client stream of {@code tokenRef}. */
    public static String stream(String tokenRef) {
        return PREFIX + tokenRef;
    }

    /** The tokenRef a client stream's name holds, or null when {@code stream} names no client stream. */
    public static String tokenRef(String stream) {
        if (stream == null || !stream.startsWith(PREFIX)) {
            return null;
        }
        String tokenRef = stream.substring(PREFIX.length());
        return Hex.isLowerHex(tokenRef, 64) ? tokenRef : null;
    }
}
