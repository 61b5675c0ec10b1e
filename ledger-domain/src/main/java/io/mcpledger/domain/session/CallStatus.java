package io.mcpledger.domain.session;

/**
 * Where one requestId of a session stands, as its receipts say: refused, or admitted and then pending, finished
 * ({@code ok}, {@code error}), {@code unknown}, or unknown and then resolved by an operator.
 */
public enum CallStatus {
    REFUSED, PENDING, OK, ERROR, UNKNOWN, RESOLVED;

    /** True for every status but {@link #REFUSED}. */
    public boolean admitted() {
        return this != REFUSED;
    }

    /** The status a {@code call.outcome} receipt's {@code status} names, or null for any other text. */
    public static CallStatus ofOutcome(String status) {
        return switch (status) {
            case "ok" -> OK;
            case "error" -> ERROR;
            case "unknown" -> UNKNOWN;
            default -> null;
        };
    }
}
