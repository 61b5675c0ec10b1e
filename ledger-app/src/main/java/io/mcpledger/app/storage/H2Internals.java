package io.mcpledger.app.storage;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The fields and methods of H2's store that the ledger reaches past its public API ({@link StoreRecovery}, {@link
 * StoreHousekeeping}), pinned with H2's version: a missing one fails the using class's initialization, so the first
 * open says which.
 */
final class H2Internals {
    private H2Internals() {
    }

    static Field field(Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError("H2's " + type.getSimpleName() + " has no field " + name
                    + ": not the pinned H2 version");
        }
    }

    static Method method(Class<?> type, String name, Class<?>... parameters) {
        try {
            Method method = type.getDeclaredMethod(name, parameters);
            method.setAccessible(true);
            return method;
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError("H2's " + type.getSimpleName() + " has no method " + name
                    + ": not the pinned H2 version");
        }
    }
}
