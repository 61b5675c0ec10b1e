package io.mcpledger.app.demo;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Prints the story for a person: numbered steps, then one line per thing an actor does or hears back, with the
 * actor in a column of its own so the eye can follow who speaks. Unless verbose, session and capability ids are
 * shortened to their first and last four hex digits ({@code mcp-a924...cf68}) and the working directory is written
 * {@code $DEMO}, so that a line says what happened rather than repeating 70-character ids.
 */
final class Narrator {
    private static final String INDENT = "    ";
    private static final int ACTOR_WIDTH = 10;
    private static final Pattern SESSION = Pattern.compile("mcp-([0-9a-f]{4})[0-9a-f]{28}-[0-9a-f]{28}([0-9a-f]{4})");
    private static final Pattern CAPABILITY = Pattern.compile("cap-([0-9a-f]{4})[0-9a-f]{24}([0-9a-f]{4})");
    /** What {@code $DEMO} stands for in the brief form. */
    static final String WORK = "$DEMO";

    private final PrintWriter out;
    private final String work;
    private final boolean verbose;

    Narrator(PrintWriter out, Path work, boolean verbose) {
        this.out = out;
        this.work = work.toString();
        this.verbose = verbose;
    }

    boolean verbose() {
        return verbose;
    }

    void paragraph(String text) {
        out.println(brief(text));
        out.flush();
    }

    void step(int number, String what) {
        out.println();
        out.printf("%2d. %s%n", number, brief(what));
        out.flush();
    }

    /** {@code actor} does or hears {@code text}: a request line, an answer, an action. */
    void say(String actor, String text) {
        out.println(INDENT + pad(actor) + brief(text));
        out.flush();
    }

    /** A further line of what the previous actor said. */
    void more(String text) {
        out.println(INDENT + pad("") + brief(text));
        out.flush();
    }

    /** Text produced by something else (a policy document, a command's output), indented under the last line. */
    void quote(String text) {
        for (String line : text.strip().split("\\R")) {
            out.println(INDENT + pad("") + "| " + brief(line));
        }
        out.flush();
    }

    /** The text as printed: whole when verbose, else with ids shortened and the working directory as $DEMO. */
    String brief(String text) {
        if (verbose) {
            return text;
        }
        String shorter = SESSION.matcher(text).replaceAll("mcp-$1...$2");
        shorter = CAPABILITY.matcher(shorter).replaceAll("cap-$1...$2");
        return shorter.replace(work, WORK);
    }

    private static String pad(String actor) {
        return actor.length() >= ACTOR_WIDTH ? actor + " " : actor + " ".repeat(ACTOR_WIDTH - actor.length());
    }
}
