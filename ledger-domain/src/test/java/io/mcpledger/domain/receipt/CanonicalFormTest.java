package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Assume;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.arbitraries.StringArbitrary;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link CanonicalForm} answers as the one canonical encoder does: text is canonical exactly when
 * {@code Canonical.jcs(parse(text))} gives it back. Random trees (every control character, quotes, backslashes,
 * non-ASCII, surrogate pairs, member names that sort by UTF-16 units, integers at the safe limits) and random edits
 * of their canonical text are checked against that reference.
 */
class CanonicalFormTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * The reference: what the encoder says, for text Jackson reads. The encoder takes only an object or an array at
     * the top (as receipts are); other text is left out of the comparison.
     */
    private static boolean reference(String text) {
        JsonNode tree;
        try {
            tree = Canonical.parse(text);
        } catch (IOException e) {
            return false;
        }
        Assume.that(tree != null && tree.isContainerNode() && integersOnly(tree) && wellFormed(text));
        return Canonical.jcs(tree).equals(text);
    }

    /**
     * Receipts hold no fractions, no integers beyond 2^53 - 1 and no unpaired surrogates (UTF-8 cannot carry them), so
     * CanonicalForm refuses those unasked.
     */
    private static boolean integersOnly(JsonNode node) {
        if (node.isNumber()) {
            return node.isIntegralNumber() && node.canConvertToLong()
                    && Math.abs(node.asLong()) <= Receipt.MAX_SAFE_INTEGER;
        }
        for (JsonNode child : node) {
            if (!integersOnly(child)) {
                return false;
            }
        }
        return true;
    }

    @Provide
    Arbitrary<String> texts() {
        StringArbitrary chars = Arbitraries.strings().ofMaxLength(6)
                .withChars('\u0000', '\u0001', '\b', '\t', '\n', '\f', '\r', '\u001f', ' ', '"', '\\', '/', 'a', 'B',
                        '~', '\u007f', '\u0080', '\u00e9', '\u2028', '\uffff', '\ud800', '\udbff', '\udc00', '\udfff');
        return chars.filter(CanonicalFormTest::wellFormed);
    }

    private static boolean wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** An object at the top, as receipts are (and as the encoder requires). */
    @Provide
    Arbitrary<JsonNode> trees() {
        return Arbitraries.maps(texts(), tree(2)).ofMaxSize(5).map(m -> {
            ObjectNode node = NODES.objectNode();
            m.forEach(node::set);
            return node;
        });
    }

    private Arbitrary<JsonNode> tree(int depth) {
        Arbitrary<JsonNode> leaf = Arbitraries.oneOf(
                texts().map(NODES::textNode),
                Arbitraries.longs().between(-Receipt.MAX_SAFE_INTEGER, Receipt.MAX_SAFE_INTEGER).map(NODES::numberNode),
                Arbitraries.of(0L, 1L, -1L, Receipt.MAX_SAFE_INTEGER, -Receipt.MAX_SAFE_INTEGER).map(NODES::numberNode),
                Arbitraries.of(NODES.booleanNode(true), NODES.booleanNode(false), NODES.nullNode()));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<JsonNode> children = tree(depth - 1);
        Arbitrary<JsonNode> object = Arbitraries.maps(texts(), children).ofMaxSize(5).map(m -> {
            ObjectNode node = NODES.objectNode();
            m.forEach(node::set);
            return node;
        });
        Arbitrary<JsonNode> array = children.list().ofMaxSize(4).map(l -> {
            ArrayNode node = NODES.arrayNode();
            l.forEach(node::add);
            return node;
        });
        return Arbitraries.oneOf(leaf, object, array);
    }

    @Property(tries = 500)
    void theEncodersOutputIsCanonical(@ForAll("trees") JsonNode tree) {
        assertThat(CanonicalForm.isCanonical(Canonical.jcs(tree))).as(visible(Canonical.jcs(tree))).isTrue();
    }

    @Property(tries = 1500)
    void anEditedTextIsCanonicalExactlyWhenTheEncoderSaysSo(@ForAll("trees") JsonNode tree,
            @ForAll("edits") Edit edit, @ForAll @IntRange(min = 0, max = 1000) int where) {
        String canonical = Canonical.jcs(tree);
        String edited = edit.apply(canonical, where * (canonical.length() + 1) / 1001);
        assertThat(CanonicalForm.isCanonical(edited)).as(visible(edited)).isEqualTo(reference(edited));
    }

    @Property(tries = 1000)
    void theEncoderWritesWhatTheReferenceImplementationWrites(@ForAll("trees") JsonNode tree,
            @ForAll("texts") String name, @ForAll("anyStrings") String text) {
        assertThat(Canonical.jcs(tree)).isEqualTo(Canonical.referenceJcs(tree));
        ObjectNode more = ((ObjectNode) tree).deepCopy();
        more.put(name, text);
        more.put(name + "f", 1.5);
        more.put(name + "d", 5.0);
        more.putArray(name + "a").add(1e21).add(-0.0).add(text);
        assertThat(Canonical.jcs(more)).as(visible(text)).isEqualTo(Canonical.referenceJcs(more));
    }

    /** Any UTF-16 text, unpaired surrogates included: the encoder leaves those to the reference. */
    @Provide
    Arbitrary<String> anyStrings() {
        return Arbitraries.strings().ofMaxLength(8).withCharRange('\u0000', '\u00ff')
                .withChars('\u2028', '\ud800', '\udbff', '\udc00', '\udfff', '\uffff');
    }

    @Property(tries = 500)
    void aMembersTextIsWhatTheTreeSaysOfIt(@ForAll("trees") JsonNode tree, @ForAll("texts") String absent) {
        String canonical = Canonical.jcs(tree);
        List<String> names = new java.util.ArrayList<>();
        tree.fieldNames().forEachRemaining(names::add);
        names.add(absent);
        for (String name : names) {
            assertThat(CanonicalForm.memberText(canonical, 0, name)).as(visible(canonical) + " " + visible(name))
                    .isEqualTo(tree.path(name).asText());
        }
    }

    @Property(tries = 500)
    void aMembersStringAndObjectAreWhatTheTreeSaysOfThem(@ForAll("trees") JsonNode tree,
                                                          @ForAll("texts") String absent) {
        String canonical = Canonical.jcs(tree);
        List<String> names = new java.util.ArrayList<>();
        tree.fieldNames().forEachRemaining(names::add);
        names.add(absent);
        for (String name : names) {
            JsonNode value = tree.get(name);
            assertThat(CanonicalForm.memberString(canonical, 0, name)).as(visible(canonical) + " " + visible(name))
                    .isEqualTo(value != null && value.isTextual() ? value.textValue() : null);
            int object = CanonicalForm.memberObject(canonical, 0, name);
            if (value != null && value.isObject()) {
                String jcs = Canonical.jcs(value);
                assertThat(canonical.substring(object, object + jcs.length())).as(visible(canonical)).isEqualTo(jcs);
            } else {
                assertThat(object).as(visible(canonical) + " " + visible(name)).isEqualTo(-1);
            }
        }
    }

    @Property(tries = 500)
    void theMembersHandedOverAreTheTreesOwn(@ForAll("trees") JsonNode tree) {
        String canonical = Canonical.jcs(tree);
        List<String> names = new java.util.ArrayList<>();
        tree.fieldNames().forEachRemaining(names::add);
        names.sort(null);
        CanonicalForm.Members members = CanonicalForm.members(canonical, names.toArray(new String[0]));
        if (canonical.contains("null")) {
            // A null anywhere is refused (receipts hold none); "null" may also just be text in a string.
            Assume.that(members != null);
        }
        assertThat(members).as(visible(canonical)).isNotNull();
        for (int i = 0; i < names.size(); i++) {
            JsonNode value = tree.get(names.get(i));
            if (value.isTextual()) {
                assertThat(members.kind(i)).isEqualTo(CanonicalForm.Kind.STRING);
                assertThat(members.text(i)).isEqualTo(value.textValue());
            } else if (value.isIntegralNumber()) {
                assertThat(members.kind(i)).isEqualTo(CanonicalForm.Kind.INTEGER);
                assertThat(members.number(i)).isEqualTo(value.asLong());
            } else {
                assertThat(members.kind(i)).isEqualTo(value.isObject() ? CanonicalForm.Kind.OBJECT
                        : value.isArray() ? CanonicalForm.Kind.ARRAY : CanonicalForm.Kind.BOOLEAN);
            }
        }
        if (!names.isEmpty()) {
            // A name the table lacks is refused.
            assertThat(CanonicalForm.members(canonical, names.subList(1, names.size()).toArray(new String[0])))
                    .isNull();
        }
    }

    /** Text with every character outside printable ASCII shown as its escape, so a failure can be read. */
    private static String visible(String text) {
        StringBuilder out = new StringBuilder();
        text.chars().forEach(c -> out.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c)
                : String.format("<U+%04X>", c)));
        return out.toString();
    }

    /** A small change to canonical text: most make it non-canonical, some keep it canonical. */
    record Edit(String name, String insert, int delete) {
        String apply(String text, int at) {
            int from = Math.min(at, text.length());
            int to = Math.min(text.length(), from + delete);
            return text.substring(0, from) + insert + text.substring(to);
        }
    }

    @Provide
    Arbitrary<Edit> edits() {
        List<String> inserts = List.of("", " ", "\n", "0", "-", "1", ".5", "e1", "\\u0041", "\\u001F", "\\u001f",
                "\\n", "\\u000a", "\\/", "/", "\"", ",", ":", "{}", "[]", "\"a\":1,", ",\"a\":1", "\\\\", "\u00e9",
                "\\u00e9", "\ud83d\ude00", "\\ud83d\\ude00", "null", "true");
        return Arbitraries.of(inserts).flatMap(insert -> Arbitraries.integers().between(0, 3)
                .map(delete -> new Edit("insert", insert, delete)));
    }

    /** The encoder keeps a builder per thread and drops one a large document grew: each is written whole. */
    @Example
    void aLargeDocumentThenASmallOneAreEachWrittenWhole() {
        ObjectNode large = JsonNodeFactory.instance.objectNode().put("policy", "x".repeat(200_000));
        ObjectNode small = JsonNodeFactory.instance.objectNode().put("b", 1).put("a", "z");

        assertThat(Canonical.jcs(large)).isEqualTo(Canonical.referenceJcs(large)).hasSize(200_013);
        assertThat(Canonical.jcs(small)).isEqualTo("{\"a\":\"z\",\"b\":1}");
        assertThat(Canonical.jcs(small)).isEqualTo(Canonical.referenceJcs(small));
    }

    @Example
    void receiptsOfTheVectorsAreCanonicalAndTheirSpacedFormsAreNot() {
        for (JsonNode r : LedgerVectors.receipts()) {
            String line = r.path("jcs").asText();
            assertThat(CanonicalForm.isCanonical(line)).isTrue();
            assertThat(CanonicalForm.isCanonical(line.replace(",", ", "))).isFalse();
            assertThat(CanonicalForm.isCanonical(line + "\n")).isFalse();
        }
    }

    @Example
    void theSpellingsCanonicalJsonRules() {
        assertThat(CanonicalForm.isCanonical("{\"a\":1,\"b\":[true,false,null],\"c\":\"\\u001f\\n\"}")).isTrue();
        assertThat(CanonicalForm.isCanonical("{\"b\":1,\"a\":2}")).as("member order").isFalse();
        assertThat(CanonicalForm.isCanonical("{\"a\":1,\"a\":2}")).as("a name twice").isFalse();
        assertThat(CanonicalForm.isCanonical("\"\\u001F\"")).as("uppercase hex").isFalse();
        assertThat(CanonicalForm.isCanonical("\"\\u000a\"")).as("long form of a short escape").isFalse();
        assertThat(CanonicalForm.isCanonical("\"\\/\"")).as("escaped solidus").isFalse();
        assertThat(CanonicalForm.isCanonical("\"\\u0041\"")).as("escaped letter").isFalse();
        assertThat(CanonicalForm.isCanonical("-0")).isFalse();
        assertThat(CanonicalForm.isCanonical("007")).isFalse();
        assertThat(CanonicalForm.isCanonical("9007199254740991")).isTrue();
        assertThat(CanonicalForm.isCanonical("9007199254740992")).as("beyond 2^53 - 1").isFalse();
        assertThat(CanonicalForm.isCanonical("1.5")).as("fractions: receipts hold none").isFalse();
        assertThat(CanonicalForm.isCanonical("\"\ud800\"")).as("unpaired surrogate").isFalse();
        assertThat(CanonicalForm.isCanonical("[".repeat(300) + "]".repeat(300))).as("too deep").isFalse();
        assertThat(CanonicalForm.isCanonical("")).isFalse();
    }
}
