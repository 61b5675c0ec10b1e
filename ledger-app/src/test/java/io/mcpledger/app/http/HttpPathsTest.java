package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micronaut.core.util.PathMatcher;
import java.net.URI;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The two tests of a request's path the ledger makes itself where Micronaut or the JDK made them before: which paths
 * {@link AuthFilter} guards (exactly those its Ant patterns match), and which request-targets {@link PathSegments}
 * reads without parsing a {@link URI} (only those whose parsed raw path is the target up to its query).
 */
class HttpPathsTest {
    private static final String CHARACTERS = "/v1metrics.%*?{}a+;&:@ |\"^`<>\\#[]\u00e909AFz~!$'(),=_-";

    @Provide
    Arbitrary<String> paths() {
        Arbitrary<String> start = Arbitraries.of("/v1/", "/v1", "/metrics", "/metrics/", "/", "//", "/v1/sessions/",
                "/health", "");
        Arbitrary<String> rest = Arbitraries.strings().withChars(CHARACTERS.toCharArray())
                .ofMinLength(0).ofMaxLength(24);
        return Combinators.combine(start, rest).as(String::concat);
    }

    @Property(tries = 20_000)
    void theFilterGuardsExactlyWhatItsPatternsMatch(@ForAll("paths") String path) {
        boolean matched = AuthFilter.GUARDED.stream().anyMatch(pattern -> PathMatcher.ANT.matches(pattern, path));

        assertThat(AuthFilter.guards(path)).as(path).isEqualTo(matched);
    }

    @Example
    void everySpellingOfAGuardedPathIsGuarded() {
        for (String path : new String[] {"/v1", "/v1/", "/v1//", "//v1/x", "/v1/../x", "/v1/sessions/a/calls",
                "/metrics", "/metrics/", "//metrics", "/metrics/x"}) {
            assertThat(AuthFilter.guards(path)).as(path).isTrue();
        }
        for (String path : new String[] {"/health", "/openapi.json", "/", "/V1/x", "/v1x", "/metricsx", "/mcp"}) {
            assertThat(AuthFilter.guards(path)).as(path).isFalse();
        }
    }

    @Property(tries = 20_000)
    void aPlainTargetIsItsOwnRawPath(@ForAll("paths") String target) {
        if (PathSegments.plain(target)) {
            int query = target.indexOf('?');
            assertThat(URI.create(target).getRawPath()).as(target)
                    .isEqualTo(query < 0 ? target : target.substring(0, query));
        }
    }

    @Example
    void whatRfc3986RefusesIsNotPlain() {
        for (String target : new String[] {"/v1/sessions/a|b/calls", "/v1/sessions/a\"b/calls",
                "/v1/sessions/a^b/calls", "/v1/sessions/a%zzb/calls", "/v1/sessions/a%4", "/v1/sessions/a b/calls",
                "/v1/sessions/a\u00e9b/calls", "/v1/sessions/a/calls#f", "/v1/sessions/a/calls?x|y",
                "//v1/sessions/a/calls", "http://h/v1/sessions", ""}) {
            assertThat(PathSegments.plain(target)).as(target).isFalse();
        }
        for (String target : new String[] {"/v1/sessions/a!$&'()*+,;=:@b/calls", "/v1/sessions/r%2F1/calls?x=1",
                "/v1/sessions/mcp-0123-abcd/calls"}) {
            assertThat(PathSegments.plain(target)).as(target).isTrue();
            assertThat(URI.create(target).getRawPath()).as(target).isEqualTo(target.replaceFirst("\\?.*", ""));
        }
    }
}
