package io.mcpledger.app.storage;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The ledger's periodic background work runs on one named daemon thread per job, so it never holds the JVM up. */
public final class DaemonScheduler {
    private DaemonScheduler() {
    }

    /** A single-thread scheduler whose thread is a daemon named {@code name}. */
    public static ScheduledExecutorService named(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }
}
