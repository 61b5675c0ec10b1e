package io.mcpledger.app.http;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an endpoint the edge role may call (contract section 3). Operators may call every endpoint and auditors every
 * {@code GET}; the role is read from the route Micronaut matched, never from the path text, so no spelling of a
 * path (a trailing '/', an escape) can reach an endpoint the role may not call.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface EdgeEndpoint {
}
