package io.mcpledger.query;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * What the projections changed and have not stored yet, over a bounded cache of what the store holds. Changes go to
 * {@code dirty}; a flush merges them into {@code flushing}, writes that, and then lets it go to the cache. Values in
 * {@code flushing} and in the cache are never changed in place (a fold copies one into {@code dirty} first), so a
 * flush writes them without holding the projections' lock. Not thread-safe: the projector's lock guards it.
 */
final class Overlay<K, V> {
    private Map<K, V> dirty = new HashMap<>();
    private Map<K, V> flushing = new HashMap<>();
    private final Cache<K, V> clean;

    Overlay(long cacheSize) {
        this.clean = cacheSize > 0 ? Caffeine.newBuilder().maximumSize(cacheSize).build() : null;
    }

    /** The newest value: changed, being flushed, or cached; null when the store must be asked. */
    V get(K key) {
        V value = dirty.get(key);
        if (value == null) {
            value = flushing.get(key);
        }
        if (value == null && clean != null) {
            value = clean.getIfPresent(key);
        }
        return value;
    }

    /** The value when it was changed since the last flush began, so it may be changed in place. */
    V dirty(K key) {
        return dirty.get(key);
    }

    void put(K key, V value) {
        dirty.put(key, value);
    }

    /** True while a flush is writing a value of this key. */
    boolean flushing(K key) {
        return flushing.containsKey(key);
    }

    /** Forgets a change made since the last flush began, which the store must not hear of. */
    void discard(K key) {
        dirty.remove(key);
    }

    /** Remembers what the store holds, unless a newer value is unflushed. */
    void cache(K key, V value) {
        if (clean != null && !dirty.containsKey(key) && !flushing.containsKey(key)) {
            clean.put(key, value);
        }
    }

    /** Every value not stored yet, the ones being flushed first (a later change of a key comes after). */
    void forEachUnflushed(BiConsumer<K, V> action) {
        flushing.forEach(action);
        dirty.forEach(action);
    }

    int unflushed() {
        return dirty.size() + flushing.size();
    }

    /** Starts a flush: everything not stored yet, newest value per key; a failed flush is retried with it. */
    List<V> startFlush() {
        if (!dirty.isEmpty()) {
            if (flushing.isEmpty()) {
                Map<K, V> swap = flushing;
                flushing = dirty;
                dirty = swap;
            } else {
                flushing.putAll(dirty);
                dirty.clear();
            }
        }
        return new ArrayList<>(flushing.values());
    }

    /** The flush is stored: its values are what the store holds, and the newest unless changed since. */
    void flushed() {
        flushed(value -> true);
    }

    /**
     * As {@link #flushed()}, keeping in the cache only the stored values {@code keep} picks: those likely to be read
     * again soon. Each one cached costs the cache's bookkeeping, under the projections' lock.
     */
    void flushed(Predicate<V> keep) {
        Map<K, V> stored = flushing;
        flushing = new HashMap<>();
        if (clean != null) {
            stored.forEach((key, value) -> {
                if (keep.test(value) && !dirty.containsKey(key)) {
                    clean.put(key, value);
                }
            });
        }
    }

    /** Forgets everything, for a rebuild. */
    void clear() {
        dirty.clear();
        flushing.clear();
        if (clean != null) {
            clean.invalidateAll();
        }
    }
}
