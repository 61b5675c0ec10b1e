package io.mcpledger.app.http;

import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The URI templates of the ledger's routes, read from its controllers' annotations as Micronaut reads them. */
final class RouteTemplates {
    private static final Map<Class<? extends Annotation>, Function<Annotation, String>> METHODS = Map.of(
            Get.class, a -> ((Get) a).value(),
            Post.class, a -> ((Post) a).value(),
            Put.class, a -> ((Put) a).value(),
            Delete.class, a -> ((Delete) a).value());

    private RouteTemplates() {
    }

    /** Every route's template, the controller's prefix included. */
    static List<String> all() {
        return of(METHODS.keySet());
    }

    /** The templates of the routes Micronaut tries for a POST: those a request to record a call is matched against. */
    static List<String> posts() {
        return of(List.of(Post.class));
    }

    private static List<String> of(Iterable<Class<? extends Annotation>> methods) {
        List<String> templates = new ArrayList<>();
        for (Class<?> controller : controllers()) {
            String prefix = controller.getAnnotation(Controller.class).value();
            for (Method method : controller.getDeclaredMethods()) {
                for (Class<? extends Annotation> type : methods) {
                    Annotation annotation = method.getAnnotation(type);
                    if (annotation != null) {
                        templates.add(prefix + METHODS.get(type).apply(annotation));
                    }
                }
            }
        }
        return templates;
    }

    private static List<Class<?>> controllers() {
        try {
            return List.of(SessionController.class, ClientController.class, AuditController.class,
                    AuthorityController.class, LogController.class, HealthController.class, MetricsController.class,
                    OpenApiController.class, Class.forName("io.mcpledger.app.edge.McpController"));
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the edge's controller moved", e);
        }
    }
}
