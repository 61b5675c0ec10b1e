package io.mcpledger.app.statedir;

import java.util.Locale;

/** The three credential roles of contract section 3. */
public enum Role {
    /** Session and call endpoints, used by MCP edges on every call. */
    EDGE,
    /** Everything, including policy and revocation. */
    OPERATOR,
    /** Every {@code GET}. */
    AUDITOR;

    /** The lowercase name used in file names, token prefixes and the hash file. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role with this {@link #id()}, or {@code null}. */
    public static Role fromId(String id) {
        for (Role role : values()) {
            if (role.id().equals(id)) {
                return role;
            }
        }
        return null;
    }
}
