package io.mcpledger.domain.session;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import java.util.List;

/** The MCP protocol versions the ledger accepts (contract section 4). */
public final class ProtocolVersions {
    public static final List<String> SUPPORTED = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");
    /** The revision without sessions (contract section 15): the only one sessionless calls accept. */
    public static final String SESSIONLESS = "2026-07-28";
    /** What a resume without a version means. */
    public static final String RESUME_DEFAULT = "2025-03-26";

    private ProtocolVersions() {
    }

    static String require(String version) {
        if (!SUPPORTED.contains(version)) {
            throw new LedgerException(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                    "unsupported protocolVersion " + version + "; supported: " + String.join(", ", SUPPORTED));
        }
        return version;
    }

    /** A sessionless call's version: {@link #SESSIONLESS}, else {@code 400 unsupported_protocol_version}. */
    static String requireSessionless(String version) {
        if (!SESSIONLESS.equals(version)) {
            throw new LedgerException(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION, "unsupported protocolVersion " + version
                    + " for a call without a session; supported: " + SESSIONLESS
                    + " (the initialize-era versions call through a session)");
        }
        return version;
    }
}
