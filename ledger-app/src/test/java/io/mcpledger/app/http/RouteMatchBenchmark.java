package io.mcpledger.app.http;

import io.micronaut.http.uri.UriTemplateMatcher;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What matching a request's path to its route costs on the event loop: Micronaut's router tries every route of the
 * request's method ({@code DefaultRouter.findClosest}), each with its {@link UriTemplateMatcher}, and a template
 * whose variable has a pattern is matched with a regular expression from that variable on. Here every POST route of
 * the controllers, as written ({@code possessive}: {@code [^/]++}) or with the greedy {@code [^/]+} they had before,
 * against the path of an admission and of an outcome. Run as benchmarks.md section 8 says ("Less on the event
 * loops"): {@code java -cp
 * ledger-app/target/test-classes:ledger-app/target/classes:$(cat ledger-app/cp.txt) org.openjdk.jmh.Main
 * RouteMatchBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouteMatchBenchmark {
    private static final String SESSION = "mcp-0123456789abcdef0123456789abcdef-0123456789abcdef0123456789abcdef";
    private static final String CALL = "/v1/sessions/" + SESSION + "/calls";
    private static final String OUTCOME = CALL + "/r-0000000001/outcome";

    @Param({"possessive", "greedy"})
    public String variables;

    private UriTemplateMatcher[] posts;

    @Setup
    public void routes() {
        List<String> templates = RouteTemplates.posts();
        if (variables.equals("greedy")) {
            templates = templates.stream().map(t -> t.replace("[^/]++}", "[^/]+}")).toList();
        }
        posts = templates.stream().map(UriTemplateMatcher::new).toArray(UriTemplateMatcher[]::new);
        if (matches(CALL) != 1 || matches(OUTCOME) != 1) {
            throw new IllegalStateException("each path must match exactly one POST route of " + templates);
        }
    }

    /** Every POST route tried against an admission's path; one matches. */
    @Benchmark
    public int admission() {
        return matches(CALL);
    }

    /** Every POST route tried against an outcome's path; one matches. */
    @Benchmark
    public int outcome() {
        return matches(OUTCOME);
    }

    private int matches(String path) {
        int matched = 0;
        for (UriTemplateMatcher route : posts) {
            if (route.tryMatch(path) != null) {
                matched++;
            }
        }
        return matched;
    }
}
