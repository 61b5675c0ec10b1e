package io.mcpledger.domain;

/** The error codes of the contract (contract sections 3, 4, 5, 8, 11, 15) with their HTTP status. */
public enum ErrorCode {
    INVALID_JSON("invalid_json", 400),
    INVALID_REQUEST("invalid_request", 400),
    UNSUPPORTED_PROTOCOL_VERSION("unsupported_protocol_version", 400),
    UNAUTHORIZED("unauthorized", 401),
    FORBIDDEN("forbidden", 403),
    TOKEN_REVOKED("token_revoked", 403),
    SESSION_NOT_FOUND("session_not_found", 404),
    SESSION_DELETED("session_deleted", 404),
    CALL_NOT_FOUND("call_not_found", 404),
    CAPABILITY_NOT_FOUND("capability_not_found", 404),
    CLIENT_NOT_FOUND("client_not_found", 404),
    NO_POLICY("no_policy", 404),
    RECEIPT_NOT_FOUND("receipt_not_found", 404),
    REQUEST_ID_CONFLICT("request_id_conflict", 409),
    CALL_NOT_ADMITTED("call_not_admitted", 409),
    OUTCOME_CONFLICT("outcome_conflict", 409),
    CALL_NOT_UNKNOWN("call_not_unknown", 409),
    NOT_INTEGRATED("not_integrated", 409),
    PRINCIPAL_CONFLICT("principal_conflict", 409),
    SESSION_EXPIRED("session_expired", 410),
    PAYLOAD_TOO_LARGE("payload_too_large", 413),
    URI_TOO_LONG("uri_too_long", 414),
    HEADERS_TOO_LARGE("headers_too_large", 431),
    SESSION_LIMIT("session_limit", 503),
    STORAGE_FULL("storage_full", 503),
    STARTING("starting", 503);

    private final String code;
    private final int status;

    ErrorCode(String code, int status) {
        this.code = code;
        this.status = status;
    }

    /** The wire code, e.g. {@code session_not_found}. */
    public String code() {
        return code;
    }

    public int httpStatus() {
        return status;
    }

    @Override
    public String toString() {
        return code;
    }
}
