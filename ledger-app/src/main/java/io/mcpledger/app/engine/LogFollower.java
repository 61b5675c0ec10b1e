package io.mcpledger.app.engine;

import io.mcpledger.query.LedgerProjector;
import io.mcpledger.query.LogReader;
import java.util.List;
import java.util.Set;
import org.axonframework.common.caching.Cache;

/**
 * Brings this node up to date with what other ledger nodes appended to the log they share: folds the committed
 * entries the projections do not hold yet, then drops the cached aggregates of every stream those entries changed,
 * so the next command on them is decided on their state after the other nodes' receipts. On H2, which one process
 * holds, there is nothing to follow and {@link #follow()} does nothing.
 *
 * <p>It runs before every batch of commands is decided, before every read of the projections an HTTP request makes,
 * and inside every append, under the log's lock ({@link LedgerEventStorage}), where it folds exactly the entries
 * before the append's first position: a batch decided on state that changed meanwhile is then refused and decided
 * again.
 */
final class LogFollower {
    private final boolean shared;
    private final LedgerProjector projector;
    private final LogReader log;
    private final List<Cache> aggregateCaches;

    LogFollower(boolean shared, LedgerProjector projector, LogReader log, List<Cache> aggregateCaches) {
        this.shared = shared;
        this.projector = projector;
        this.log = log;
        this.aggregateCaches = aggregateCaches;
    }

    /** True when other nodes may append. */
    boolean shared() {
        return shared;
    }

    /** Folds everything committed so far; nothing on an unshared database. */
    void follow() {
        if (shared && !projector.problem().isPresent()) {
            followTo(log.size());
        }
    }

    /** Folds the committed entries before {@code end} and forgets the aggregates they changed. */
    void followTo(long end) {
        if (end <= projector.position()) {
            return;
        }
        Set<String> changed = projector.follow(end);
        for (String stream : changed) {
            for (Cache cache : aggregateCaches) {
                cache.remove(stream);
            }
        }
    }
}
