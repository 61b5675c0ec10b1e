package io.mcpledger.app.storage;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A {@code --database} URL: a PostgreSQL JDBC URL such as
 * {@code jdbc:postgresql://db.internal:5432/ledger?user=ledger&password=...}. The password (from the URL, or when it
 * has none from {@code LEDGER_DATABASE_PASSWORD}) is kept apart from the URL, so that nothing the ledger prints,
 * logs or answers can carry it: {@link #toString()} and {@link #withoutCredentials()} leave it out.
 */
public final class DatabaseUrl {
    /** The environment variable that holds the password when the URL has none. */
    public static final String PASSWORD_VARIABLE = "LEDGER_DATABASE_PASSWORD";
    private static final String PREFIX = "jdbc:postgresql:";

    private final String url;
    private final String password;

    private DatabaseUrl(String url, String password) {
        this.url = url;
        this.password = password;
    }

    /**
     * Parses {@code text}; {@code environmentPassword} (may be null) is used when the URL has no password.
     *
     * @throws IllegalArgumentException when it is not a PostgreSQL JDBC URL; the message never repeats a password
     */
    public static DatabaseUrl parse(String text, String environmentPassword) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--database needs a JDBC URL such as"
                    + " jdbc:postgresql://HOST:5432/DATABASE?user=USER");
        }
        String trimmed = text.strip();
        if (!trimmed.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
            // Only what comes before "//": a URL such as postgres://user:secret@host must not be repeated whole.
            String scheme = trimmed.split("//", 2)[0];
            if (scheme.contains("@") || scheme.length() > 24) {
                scheme = "what was given ";
            }
            throw new IllegalArgumentException("--database takes a PostgreSQL JDBC URL (" + PREFIX
                    + "//HOST:PORT/DATABASE?user=USER), not " + scheme + "...; without --database the ledger stores"
                    + " in its state directory's H2 file");
        }
        int query = trimmed.indexOf('?');
        String base = query < 0 ? trimmed : trimmed.substring(0, query);
        List<String> kept = new ArrayList<>();
        String password = null;
        if (query >= 0) {
            for (String parameter : trimmed.substring(query + 1).split("&")) {
                if (parameter.isEmpty()) {
                    continue;
                }
                int eq = parameter.indexOf('=');
                String name = eq < 0 ? parameter : parameter.substring(0, eq);
                if (name.equalsIgnoreCase("password")) {
                    password = eq < 0 ? "" : URLDecoder.decode(parameter.substring(eq + 1), StandardCharsets.UTF_8);
                } else if (name.toLowerCase(Locale.ROOT).contains("password")) {
                    throw new IllegalArgumentException("--database: give the password as 'password=' or in "
                            + PASSWORD_VARIABLE + "; the URL's parameter " + name + " is not used by the ledger");
                } else {
                    kept.add(parameter);
                }
            }
        }
        if (password == null && environmentPassword != null && !environmentPassword.isEmpty()) {
            password = environmentPassword;
        }
        return new DatabaseUrl(kept.isEmpty() ? base : base + "?" + String.join("&", kept), password);
    }

    /** The URL to connect with, without the password. */
    public String withoutCredentials() {
        return url;
    }

    /** The password, or null when the server asks for none. */
    String password() {
        return password;
    }

    /** The URL without its password: safe to print. */
    @Override
    public String toString() {
        return url;
    }
}
