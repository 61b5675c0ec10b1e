package io.mcpledger.app.demo;

import java.io.PrintWriter;

/**
 * Prints the story for a person: numbered steps, then one line per thing an actor does or hears back, with the
 * actor in a column of its own so the eye can follow who speaks.
 */
final class Narrator {
    private static final String INDENT = "    ";
    private static final int ACTOR_WIDTH = 10;

    private final PrintWriter out;

    Narrator(PrintWriter out) {
        this.out = out;
    }

    void paragraph(String text) {
        out.println(text);
        out.flush();
    }

    void step(int number, String what) {
        out.println();
        out.printf("%2d. %s%n", number, what);
        out.flush();
    }

    /** {@code actor} does or hears {@code text}: a request line, an answer, an action. */
    void say(String actor, String text) {
        out.println(INDENT + pad(actor) + text);
        out.flush();
    }

    /** A further line of what the previous actor said. */
    void more(String text) {
        out.println(INDENT + pad("") + text);
        out.flush();
    }

    /** Text produced by something else (a policy document, a command's output), indented under the last line. */
    void quote(String text) {
        for (String line : text.strip().split("\\R")) {
            out.println(INDENT + pad("") + "| " + line);
        }
        out.flush();
    }

    private static String pad(String actor) {
        return actor.length() >= ACTOR_WIDTH ? actor + " " : actor + " ".repeat(ACTOR_WIDTH - actor.length());
    }
}
