package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics}: every meter in Prometheus's text exposition format 0.0.4, for the auditor and operator
 * credentials (an edge's is refused as for every read that is not its own). Scraping reads the log's committed size
 * from the database, so it runs on the blocking pool.
 */
@Requires(notEnv = Environments.EDGE)
@Controller("/metrics")
class MetricsController {
    static final MediaType PROMETHEUS = MediaType.of("text/plain; version=0.0.4; charset=utf-8");

    private final PrometheusMeterRegistry registry;

    MetricsController(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Get
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> scrape() {
        return HttpResponse.<byte[]>ok(registry.scrape().getBytes(StandardCharsets.UTF_8)).contentType(PROMETHEUS);
    }
}
