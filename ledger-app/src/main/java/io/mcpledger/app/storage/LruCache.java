package io.mcpledger.app.storage;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.axonframework.common.Registration;
import org.axonframework.common.caching.Cache;

/**
 * A bounded, strongly referenced, least-recently-used Axon {@link Cache} for aggregates. Axon's
 * {@code WeakReferenceCache} is emptied at every garbage collection, so aggregates get re-sourced from ever longer
 * streams and throughput decays; this one keeps the {@code capacity} most recently used entries.
 *
 * <p>Thread-safe: one lock guards the map. Reading, writing and computing an entry count as using it;
 * {@code containsKey} does not. An entry pushed out by a new one is reported to listeners as expired
 * ({@link EntryListener#onEntryExpired}), as Axon's own caches report entries dropped for space or memory. Listeners are
 * called after the lock is released, on the thread that made the change.
 */
public final class LruCache implements Cache {
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<Object, Object> entries;
    private final CopyOnWriteArraySet<EntryListener> listeners = new CopyOnWriteArraySet<>();

    /** A cache holding at most {@code capacity} entries. */
    public LruCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true);
    }

    public int capacity() {
        return capacity;
    }

    public int size() {
        lock.lock();
        try {
            return entries.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> V get(K key) {
        requireKey(key);
        Object value;
        lock.lock();
        try {
            value = entries.get(key);
        } finally {
            lock.unlock();
        }
        if (value != null) {
            notify(l -> l.onEntryRead(key, value));
        }
        return (V) value;
    }

    @Override
    public void put(Object key, Object value) {
        requireKey(key);
        requireValue(value);
        Object previous;
        List<Object> evicted;
        lock.lock();
        try {
            previous = entries.put(key, value);
            evicted = evictOverflow();
        } finally {
            lock.unlock();
        }
        if (previous == null) {
            notify(l -> l.onEntryCreated(key, value));
        } else {
            notify(l -> l.onEntryUpdated(key, value));
        }
        notifyEvicted(evicted);
    }

    @Override
    public boolean putIfAbsent(Object key, Object value) {
        requireKey(key);
        requireValue(value);
        List<Object> evicted;
        lock.lock();
        try {
            if (entries.putIfAbsent(key, value) != null) {
                return false;
            }
            evicted = evictOverflow();
        } finally {
            lock.unlock();
        }
        notify(l -> l.onEntryCreated(key, value));
        notifyEvicted(evicted);
        return true;
    }

    /**
     * Returns the cached value, or stores and returns the supplier's. The supplier runs without the lock, so a slow
     * load of one aggregate never blocks the others; if two threads load the same key at once, the first to finish
     * wins and both get its value.
     */
    @Override
    @SuppressWarnings("unchecked")
    public <T> T computeIfAbsent(Object key, Supplier<T> valueSupplier) {
        T cached = get(key);
        if (cached != null) {
            return cached;
        }
        T supplied = valueSupplier.get();
        if (supplied == null) {
            throw new IllegalArgumentException("Value Supplier of Cache produced a null value for key [" + key + "]!");
        }
        Object winner;
        List<Object> evicted;
        lock.lock();
        try {
            winner = entries.putIfAbsent(key, supplied);
            evicted = winner == null ? evictOverflow() : List.of();
        } finally {
            lock.unlock();
        }
        if (winner != null) {
            return (T) winner;
        }
        notify(l -> l.onEntryCreated(key, supplied));
        notifyEvicted(evicted);
        return supplied;
    }

    /** Replaces the value with {@code update}'s result, or removes the entry when that result is {@code null}. */
    @Override
    @SuppressWarnings("unchecked")
    public <V> void computeIfPresent(Object key, UnaryOperator<V> update) {
        requireKey(key);
        Object updated;
        lock.lock();
        try {
            Object current = entries.get(key);
            if (current == null) {
                return;
            }
            // Under the lock, so no other thread's change to this entry is lost between reading and writing it.
            updated = update.apply((V) current);
            if (updated == null) {
                entries.remove(key);
            } else {
                entries.put(key, updated);
            }
        } finally {
            lock.unlock();
        }
        if (updated == null) {
            notify(l -> l.onEntryRemoved(key));
        } else {
            notify(l -> l.onEntryUpdated(key, updated));
        }
    }

    @Override
    public boolean remove(Object key) {
        requireKey(key);
        boolean removed;
        lock.lock();
        try {
            removed = entries.remove(key) != null;
        } finally {
            lock.unlock();
        }
        if (removed) {
            notify(l -> l.onEntryRemoved(key));
        }
        return removed;
    }

    @Override
    public void removeAll() {
        List<Object> removed;
        lock.lock();
        try {
            removed = new ArrayList<>(entries.keySet());
            entries.clear();
        } finally {
            lock.unlock();
        }
        for (Object key : removed) {
            notify(l -> l.onEntryRemoved(key));
        }
    }

    @Override
    public boolean containsKey(Object key) {
        requireKey(key);
        lock.lock();
        try {
            // LinkedHashMap.containsKey does not reorder, so checking for an entry does not keep it alive.
            return entries.containsKey(key);
        } finally {
            lock.unlock();
        }
    }

    /** Registers a listener; registering the same listener twice has no further effect. */
    @Override
    public Registration registerCacheEntryListener(EntryListener cacheEntryListener) {
        if (cacheEntryListener == null) {
            throw new IllegalArgumentException("the cache entry listener must not be null");
        }
        listeners.add(cacheEntryListener);
        return () -> listeners.remove(cacheEntryListener);
    }

    private List<Object> evictOverflow() {
        if (entries.size() <= capacity) {
            return List.of();
        }
        List<Object> evicted = new ArrayList<>(1);
        Iterator<Map.Entry<Object, Object>> eldest = entries.entrySet().iterator();
        while (entries.size() > capacity) {
            evicted.add(eldest.next().getKey());
            eldest.remove();
        }
        return evicted;
    }

    private void notifyEvicted(List<Object> evicted) {
        for (Object key : evicted) {
            notify(l -> l.onEntryExpired(key));
        }
    }

    private void notify(Consumer<EntryListener> event) {
        for (EntryListener listener : listeners) {
            event.accept(listener);
        }
    }

    private static void requireKey(Object key) {
        if (key == null) {
            throw new IllegalArgumentException("Key may not be null");
        }
    }

    private static void requireValue(Object value) {
        if (value == null) {
            throw new IllegalArgumentException("Null values not supported");
        }
    }
}
