package io.mcpledger.app.engine;

import com.github.benmanes.caffeine.cache.Caffeine;
import org.axonframework.common.Registration;
import org.axonframework.common.caching.Cache;

/**
 * Axon's aggregate {@link Cache} over a Caffeine cache bounded by entries: aggregates stay strongly reachable until
 * the bound evicts the least used (Axon's {@code WeakReferenceCache} empties at every collection, so aggregates would
 * be loaded again and again). Entry listeners are not supported; Axon's repositories register none.
 */
final class CaffeineCache implements Cache {
    private final com.github.benmanes.caffeine.cache.Cache<Object, Object> entries;

    CaffeineCache(long maximumSize) {
        this.entries = Caffeine.newBuilder().maximumSize(maximumSize).build();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> V get(K key) {
        return (V) entries.getIfPresent(key);
    }

    @Override
    public void put(Object key, Object value) {
        entries.put(key, value);
    }

    @Override
    public boolean putIfAbsent(Object key, Object value) {
        return entries.asMap().putIfAbsent(key, value) == null;
    }

    @Override
    public boolean remove(Object key) {
        return entries.asMap().remove(key) != null;
    }

    @Override
    public void removeAll() {
        entries.invalidateAll();
    }

    @Override
    public boolean containsKey(Object key) {
        return entries.asMap().containsKey(key);
    }

    @Override
    public Registration registerCacheEntryListener(EntryListener cacheEntryListener) {
        throw new UnsupportedOperationException("the ledger's aggregate cache has no entry listeners");
    }
}
