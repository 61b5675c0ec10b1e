package io.mcpledger.app;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;

/** Jackson's parse errors as one line a person can act on: where, then what, without parser internals. */
public final class JsonErrors {
    private JsonErrors() {
    }

    /** {@code " at line L, column C: <problem>"}, or {@code ": <problem>"} when the place is unknown. */
    public static String describe(JsonProcessingException e) {
        JsonLocation location = e.getLocation();
        String where = location == null || location.getLineNr() < 1 ? ""
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return where + ": " + oneLine(e.getOriginalMessage());
    }

    /**
     * The message on one line, without Jackson's "(start marker at [Source: ...])" aside, which names the
     * parser's input object rather than anything in the text.
     */
    public static String oneLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int aside = message.indexOf(" (start marker at");
        return (aside < 0 ? message : message.substring(0, aside)).strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
