package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.common.Registration;
import org.axonframework.common.caching.Cache;
import org.junit.jupiter.api.Test;

class LruCacheTest {
    /** Writes every notification as one line, in order. */
    private static final class Recorder extends Cache.EntryListenerAdapter {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onEntryExpired(Object key) {
            events.add("expired " + key);
        }

        @Override
        public void onEntryRemoved(Object key) {
            events.add("removed " + key);
        }

        @Override
        public void onEntryUpdated(Object key, Object value) {
            events.add("updated " + key + "=" + value);
        }

        @Override
        public void onEntryCreated(Object key, Object value) {
            events.add("created " + key + "=" + value);
        }

        @Override
        public void onEntryRead(Object key, Object value) {
            events.add("read " + key + "=" + value);
        }
    }

    private final LruCache cache = new LruCache(2);
    private final Recorder recorder = new Recorder();

    @Test
    void aNewEntryEvictsTheLeastRecentlyUsedOne() {
        cache.put("a", 1);
        cache.put("b", 2);
        cache.get("a");

        cache.put("c", 3);

        assertThat(cache.containsKey("a")).isTrue();
        assertThat(cache.containsKey("b")).isFalse();
        assertThat(cache.containsKey("c")).isTrue();
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void replacingAValueCountsAsUse() {
        cache.put("a", 1);
        cache.put("b", 2);
        cache.put("a", 10);

        cache.put("c", 3);

        assertThat((Integer) cache.get("a")).isEqualTo(10);
        assertThat(cache.containsKey("b")).isFalse();
    }

    @Test
    void containsKeyDoesNotCountAsUse() {
        cache.put("a", 1);
        cache.put("b", 2);
        assertThat(cache.containsKey("a")).isTrue();

        cache.put("c", 3);

        assertThat(cache.containsKey("a")).isFalse();
        assertThat(cache.containsKey("b")).isTrue();
    }

    @Test
    void listenersHearCreateReadUpdateRemoveAndEvictionInOrder() {
        cache.registerCacheEntryListener(recorder);

        cache.put("a", 1);
        cache.get("a");
        cache.get("missing");
        cache.put("a", 2);
        cache.put("b", 3);
        cache.put("c", 4);
        cache.remove("b");
        cache.remove("b");

        assertThat(recorder.events).containsExactly(
                "created a=1", "read a=1", "updated a=2", "created b=3", "created c=4", "expired a", "removed b");
    }

    @Test
    void aCancelledListenerHearsNothingMore() {
        Registration registration = cache.registerCacheEntryListener(recorder);
        cache.put("a", 1);

        assertThat(registration.cancel()).isTrue();
        assertThat(registration.cancel()).isFalse();
        cache.put("b", 2);

        assertThat(recorder.events).containsExactly("created a=1");
    }

    @Test
    void putIfAbsentStoresOnlyWhenTheKeyIsFree() {
        cache.registerCacheEntryListener(recorder);

        assertThat(cache.putIfAbsent("a", 1)).isTrue();
        assertThat(cache.putIfAbsent("a", 2)).isFalse();

        assertThat((Integer) cache.get("a")).isEqualTo(1);
        assertThat(recorder.events).containsExactly("created a=1", "read a=1");
    }

    @Test
    void putIfAbsentEvictsWhenFull() {
        cache.put("a", 1);
        cache.put("b", 2);

        cache.putIfAbsent("c", 3);

        assertThat(cache.containsKey("a")).isFalse();
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void computeIfAbsentReturnsTheCachedValueWithoutCallingTheSupplier() {
        cache.put("a", 1);
        AtomicInteger calls = new AtomicInteger();

        Integer value = cache.computeIfAbsent("a", () -> calls.incrementAndGet() + 100);

        assertThat(value).isEqualTo(1);
        assertThat(calls).hasValue(0);
    }

    @Test
    void computeIfAbsentStoresAndReturnsTheSuppliedValue() {
        cache.registerCacheEntryListener(recorder);

        Integer value = cache.computeIfAbsent("a", () -> 7);

        assertThat(value).isEqualTo(7);
        assertThat(recorder.events).containsExactly("created a=7");
        assertThat(cache.containsKey("a")).isTrue();
    }

    @Test
    void computeIfAbsentRefusesANullFromTheSupplier() {
        assertThatThrownBy(() -> cache.computeIfAbsent("a", () -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Value Supplier of Cache produced a null value for key [a]!");
        assertThat(cache.containsKey("a")).isFalse();
    }

    @Test
    void computeIfPresentReplacesAPresentValue() {
        cache.put("a", 1);
        cache.registerCacheEntryListener(recorder);

        cache.<Integer>computeIfPresent("a", v -> v + 1);

        assertThat((Integer) cache.get("a")).isEqualTo(2);
        assertThat(recorder.events).containsExactly("updated a=2", "read a=2");
    }

    @Test
    void computeIfPresentRemovesTheEntryWhenTheUpdateGivesNull() {
        cache.put("a", 1);
        cache.registerCacheEntryListener(recorder);

        cache.<Integer>computeIfPresent("a", v -> null);

        assertThat(cache.containsKey("a")).isFalse();
        assertThat(recorder.events).containsExactly("removed a");
    }

    @Test
    void computeIfPresentDoesNothingForAnAbsentKey() {
        cache.registerCacheEntryListener(recorder);
        AtomicInteger calls = new AtomicInteger();

        cache.<Integer>computeIfPresent("a", v -> calls.incrementAndGet());

        assertThat(calls).hasValue(0);
        assertThat(cache.containsKey("a")).isFalse();
        assertThat(recorder.events).isEmpty();
    }

    @Test
    void computeIfPresentCountsAsUse() {
        cache.put("a", 1);
        cache.put("b", 2);
        cache.<Integer>computeIfPresent("a", v -> v);

        cache.put("c", 3);

        assertThat(cache.containsKey("a")).isTrue();
        assertThat(cache.containsKey("b")).isFalse();
    }

    @Test
    void removeAllEmptiesTheCacheAndReportsEachEntry() {
        cache.put("a", 1);
        cache.put("b", 2);
        cache.registerCacheEntryListener(recorder);

        cache.removeAll();

        assertThat(cache.size()).isZero();
        assertThat(recorder.events).containsExactly("removed a", "removed b");
    }

    @Test
    void removeSaysWhetherThereWasAnEntry() {
        cache.put("a", 1);

        assertThat(cache.remove("a")).isTrue();
        assertThat(cache.remove("a")).isFalse();
    }

    @Test
    void refusesNullKeysAndValues() {
        assertThatThrownBy(() -> cache.put(null, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Key may not be null");
        assertThatThrownBy(() -> cache.put("a", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Null values not supported");
        assertThatThrownBy(() -> cache.get(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Key may not be null");
        assertThatThrownBy(() -> cache.putIfAbsent("a", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Null values not supported");
    }

    @Test
    void refusesACapacityBelowOne() {
        assertThatThrownBy(() -> new LruCache(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity must be at least 1, got 0");
    }

    @Test
    void concurrentUseNeverExceedsTheCapacityAndLosesNoUpdate() throws Exception {
        LruCache shared = new LruCache(64);
        shared.put("counter", 0);
        int threads = 8;
        int rounds = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger oversize = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                start.await();
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < rounds; i++) {
                    String key = "k" + random.nextInt(200);
                    switch (random.nextInt(4)) {
                        case 0 -> shared.put(key, i);
                        case 1 -> shared.get(key);
                        case 2 -> shared.computeIfAbsent(key, () -> 1);
                        default -> shared.remove(key);
                    }
                    shared.<Integer>computeIfPresent("counter", v -> v + 1);
                    shared.get("counter");
                    if (shared.size() > 64) {
                        oversize.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(oversize).hasValue(0);
        assertThat((Integer) shared.get("counter")).isEqualTo(threads * rounds);
    }
}
