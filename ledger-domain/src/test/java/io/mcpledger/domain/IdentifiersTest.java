package io.mcpledger.domain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The visible-ASCII rule receipts, policies and (later) requests share. */
class IdentifiersTest {
    @Test
    void acceptsVisibleAsciiUpToTheLimit() {
        assertThat(Identifiers.isVisibleAscii("!~az09", 6)).isTrue();
    }

    @Test
    void refusesTooLongEmptyOrNull() {
        assertThat(Identifiers.isVisibleAscii("abcdefg", 6)).isFalse();
        assertThat(Identifiers.isVisibleAscii("", 6)).isFalse();
        assertThat(Identifiers.isVisibleAscii(null, 6)).isFalse();
    }

    @Test
    void refusesSpacesControlsDeleteAndNonAscii() {
        assertThat(Identifiers.isVisibleAscii("a b", 6)).isFalse();
        assertThat(Identifiers.isVisibleAscii("a\tb", 6)).isFalse();
        assertThat(Identifiers.isVisibleAscii("a\u007fb", 6)).isFalse();
        assertThat(Identifiers.isVisibleAscii("caf\u00e9", 6)).isFalse();
    }

    @Test
    void textWithPairedSurrogatesIsWellFormed() {
        assertThat(Identifiers.isWellFormedText("emoji \ud83d\ude00 and caf\u00e9")).isTrue();
        assertThat(Identifiers.isWellFormedText("")).isTrue();
    }

    @Test
    void textWithAnUnpairedSurrogateIsNotWellFormed() {
        assertThat(Identifiers.isWellFormedText("a\ud800b")).isFalse();
        assertThat(Identifiers.isWellFormedText("a\udc00")).isFalse();
        assertThat(Identifiers.isWellFormedText("\ud83d")).isFalse();
        assertThat(Identifiers.isWellFormedText("\ude00\ud83d")).isFalse();
    }
}
