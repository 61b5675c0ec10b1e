package io.mcpledger.app.storage;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.function.Supplier;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The pool's connections, with every call that can change the store passing the {@link StoreGate}: on a connection
 * every method but those that create statements (a commit, a rollback, a close that rolls back, a savepoint, a change
 * of auto-commit), and on a statement every {@code execute} method. Reading a result set changes nothing and passes
 * freely.
 *
 * <p>Once H2's store has failed to write, every such call but a rollback or a close fails at once, saying so: H2 would
 * refuse it anyway, after a wait that can last for ever ({@link StoreHousekeeping#unstick}).
 */
final class GatedDataSource implements DataSource {
    private final DataSource pool;
    private final StoreGate gate;
    private final Supplier<String> failure;

    /** The connections of {@code pool} through {@code gate}; {@code failure} says why the store cannot write, or null. */
    GatedDataSource(DataSource pool, StoreGate gate, Supplier<String> failure) {
        this.pool = pool;
        this.gate = gate;
        this.failure = failure;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection(pool.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return connection(pool.getConnection(username, password));
    }

    private Connection connection(Connection connection) {
        return proxy(Connection.class, connection, (target, method, args) -> {
            Object result;
            if (method.getName().equals("createStatement") || method.getName().startsWith("prepare")) {
                result = invoke(target, method, args);
                return result instanceof Statement statement ? statement(statement) : result;
            }
            if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
                return invoke(target, method, args);
            }
            return gated(target, method, args);
        });
    }

    private Statement statement(Statement statement) {
        Class<? extends Statement> type = statement instanceof CallableStatement ? CallableStatement.class
                : statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        return proxy(type, statement, (target, method, args) -> method.getName().startsWith("execute")
                ? gated(target, method, args) : invoke(target, method, args));
    }

    private Object gated(Object target, Method method, Object[] args) throws Throwable {
        String failed = failure.get();
        if (failed != null && !method.getName().equals("close") && !method.getName().equals("rollback")) {
            throw new SQLException("the ledger's store failed to write (" + failed + "); nothing more can be stored"
                    + " until the ledger is restarted");
        }
        gate.enter();
        try {
            return invoke(target, method, args);
        } finally {
            gate.exit();
        }
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** A call on the proxied object: target, method, arguments. */
    @FunctionalInterface
    private interface Call {
        Object on(Object target, Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, Object target, Call call) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> invoke(target, method, args);
                };
            }
            return call.on(target, method, args);
        };
        return type.cast(Proxy.newProxyInstance(GatedDataSource.class.getClassLoader(), new Class<?>[] {type}, handler));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return pool.isWrapperFor(type);
    }
}
