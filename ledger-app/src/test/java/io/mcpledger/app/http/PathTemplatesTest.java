package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every path variable of the ledger's routes is one whole segment of visible characters, written
 * {@code {name:[^/]++}}: Micronaut's default pattern would refuse '+', '&' and ';' in an id, and a greedy
 * {@code [^/]+} walks back over the whole id in each route a request is tried against and does not match
 * ({@link RouteMatchBenchmark}).
 */
class PathTemplatesTest {
    private static final Pattern VARIABLE = Pattern.compile("\\{([^}]*)}");
    private static final Pattern WHOLE_SEGMENT = Pattern.compile("[A-Za-z]+:\\[\\^/]\\+\\+");

    @Test
    void everyPathVariableIsOneSegmentMatchedPossessively() {
        List<String> templates = RouteTemplates.all();
        List<String> variables = new ArrayList<>();
        for (String template : templates) {
            Matcher variable = VARIABLE.matcher(template);
            while (variable.find()) {
                variables.add(variable.group(1));
            }
        }

        assertThat(templates).as("the routes read").contains("/v1/sessions/{id:[^/]++}/calls", "/health/");
        assertThat(variables).as("the path variables of %s", templates).hasSizeGreaterThanOrEqualTo(15)
                .allSatisfy(v -> assertThat(v).matches(WHOLE_SEGMENT));
    }
}
