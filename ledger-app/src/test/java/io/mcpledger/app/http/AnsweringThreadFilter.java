package io.mcpledger.app.http;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test only: records the thread that runs Micronaut's answer to a request carrying {@link #HEADER} (response filters
 * run where the controller's future completes), under that header's value. Requests without it pass untouched.
 */
@ServerFilter("/v1/**")
class AnsweringThreadFilter {
    static final String HEADER = "X-Test-Answering-Thread";
    static final Map<String, String> THREADS = new ConcurrentHashMap<>();

    @ResponseFilter
    void record(HttpRequest<?> request, MutableHttpResponse<?> response) {
        String key = request.getHeaders().get(HEADER);
        if (key != null) {
            THREADS.put(key, Thread.currentThread().getName());
        }
    }
}
