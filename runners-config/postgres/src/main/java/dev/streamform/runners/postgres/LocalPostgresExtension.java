package dev.streamform.runners.postgres;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5: one {@link LocalPostgres} per test JVM (so one per Maven test module), started before
 * the first test class that registers this extension and stopped when the test run ends. Each test
 * asks for a {@link #newDatabase() fresh database} on it, so tests never see each other's rows.
 *
 * <pre>{@code
 * @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();
 * String url = POSTGRES.newDatabase();   // jdbc:postgresql://127.0.0.1:PORT/test_3
 * }</pre>
 */
public final class LocalPostgresExtension implements BeforeAllCallback {
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static LocalPostgres server;

  @Override
  public void beforeAll(ExtensionContext context) {
    context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(LocalPostgresExtension.class, k -> new Started(), Started.class);
  }

  /** The module's server (started by the first test class that uses the extension). */
  public LocalPostgres server() {
    synchronized (LocalPostgresExtension.class) {
      if (server == null) {
        throw new IllegalStateException(
            "register LocalPostgresExtension with @RegisterExtension on a static field");
      }
      return server;
    }
  }

  /**
   * A new, empty database on the server; its JDBC URL (user {@value LocalPostgres#USER}, no
   * password).
   */
  public String newDatabase() {
    String name = "test_" + DATABASES.incrementAndGet();
    try (Connection c = DriverManager.getConnection(server().jdbcUrl(), LocalPostgres.USER, "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name + ": " + e.getMessage(), e);
    }
    return server().jdbcUrl(name);
  }

  /** Starts the server on creation; JUnit closes it when the whole test run ends. */
  private static final class Started implements ExtensionContext.Store.CloseableResource {
    Started() {
      synchronized (LocalPostgresExtension.class) {
        try {
          server = LocalPostgres.temporary();
        } catch (IOException e) {
          throw new IllegalStateException("cannot start the test PostgreSQL: " + e.getMessage(), e);
        }
      }
    }

    @Override
    public void close() throws IOException {
      synchronized (LocalPostgresExtension.class) {
        server.close();
        server = null;
      }
    }
  }
}
