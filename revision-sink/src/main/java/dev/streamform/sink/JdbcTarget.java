package dev.streamform.sink;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Where the revision ledger lives: a PostgreSQL JDBC URL, a user, and where the password comes from
 * — never the password itself, so a pipeline that carries this value (serialized into a job graph,
 * shown in a runner's UI) never carries a secret. The password is read where a connection pool is
 * opened ({@link #openPool}): from the file named by {@link #withPasswordFile}, else from the
 * environment variable {@value #PASSWORD_ENV}, else none (trust authentication, as {@code
 * runners-config/bin/postgres} uses). A URL that names a password is refused.
 */
@AutoValue
public abstract class JdbcTarget implements Serializable {
  /** The environment variable a password is read from when no password file is named. */
  public static final String PASSWORD_ENV = "STREAMFORM_JDBC_PASSWORD";

  public abstract String url();

  public abstract @Nullable String user();

  /** An absolute path; its first line is the password. */
  public abstract @Nullable String passwordFile();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setUrl(String url);

    abstract Builder setUser(@Nullable String user);

    abstract Builder setPasswordFile(@Nullable String file);

    abstract JdbcTarget build();
  }

  /**
   * A PostgreSQL database, {@code jdbc:postgresql://HOST:PORT/DATABASE}.
   *
   * @throws IllegalArgumentException for another kind of URL, or one that names a password
   */
  public static JdbcTarget of(String url) {
    checkArgument(
        url != null && url.startsWith(PREFIX),
        "a PostgreSQL JDBC URL is needed (jdbc:postgresql://HOST:PORT/DATABASE), got: %s",
        url == null ? null : masked(url));
    String lower = url.toLowerCase(Locale.ROOT);
    int query = lower.indexOf('?');
    checkArgument(
        query < 0 || !(("&" + lower.substring(query + 1)).contains("&password=")),
        "the JDBC URL names a password: give it in the environment (%s) or a password file instead",
        PASSWORD_ENV);
    checkPorts(url);
    checkArgument(
        driverAccepts(url),
        "the PostgreSQL driver does not accept %s; write jdbc:postgresql://HOST:PORT/DATABASE",
        masked(url));
    checkNoBatchRewrite(url);
    return new AutoValue_JdbcTarget.Builder().setUrl(url).build();
  }

  /**
   * Refuses {@code reWriteBatchedInserts=true} (as the driver reads the URL): the driver then
   * answers each statement of a rewritten insert batch with no row count (SUCCESS_NO_INFO, -2), and
   * the ledger writers count rows to know a compare-and-set took place; the revision writer took
   * the missing count for another writer's move, retried for the whole retry time and failed. The
   * writers already send a batch in one round trip, so the option gains little here.
   */
  private static void checkNoBatchRewrite(String url) {
    Logger logger = Logger.getLogger("org.postgresql");
    Level level = logger.getLevel();
    logger.setLevel(Level.OFF);
    java.util.Properties parsed;
    try {
      parsed = org.postgresql.Driver.parseURL(url, null);
    } finally {
      logger.setLevel(level);
    }
    checkArgument(
        parsed == null || !Boolean.parseBoolean(parsed.getProperty(BATCH_REWRITE)),
        "the JDBC URL %s sets %s=true, which the ledger writers cannot use: the driver then reports"
            + " no row count for a batched insert, and a writer takes that for another writer's"
            + " change; leave %s out of the URL (or set it to false)",
        masked(url),
        BATCH_REWRITE,
        BATCH_REWRITE);
  }

  private static final String BATCH_REWRITE = "reWriteBatchedInserts";

  /**
   * Refuses a port (in {@code //HOST:PORT,HOST:PORT/}, or a {@code port=} parameter) that is not
   * 1–65535: the driver refused it only when connecting, with java.util.logging WARNING lines and
   * "Driver org.postgresql.Driver claims to not accept jdbcUrl".
   */
  private static void checkPorts(String url) {
    int query = url.indexOf('?');
    String server = (query < 0 ? url : url.substring(0, query)).substring(PREFIX.length());
    List<String> ports = new ArrayList<>();
    if (server.startsWith("//")) {
      String hosts = server.substring(2);
      int slash = hosts.indexOf('/');
      hosts = slash < 0 ? hosts : hosts.substring(0, slash);
      // after any user info (//user:secret@host), which is not a port and is not to be shown
      for (String address : hosts.substring(hosts.lastIndexOf('@') + 1).split(",", -1)) {
        int colon = address.lastIndexOf(':');
        if (colon >= 0 && address.lastIndexOf(']') < colon) {
          ports.add(address.substring(colon + 1));
        }
      }
    }
    if (query >= 0) {
      for (String parameter : url.substring(query + 1).split("&")) {
        if (parameter.toLowerCase(Locale.ROOT).startsWith("port=")) {
          ports.addAll(List.of(parameter.substring("port=".length()).split(",", -1)));
        }
      }
    }
    for (String port : ports) {
      checkArgument(
          PORT.matcher(port).matches() && Integer.parseInt(port) <= 65535,
          "port %s in %s is not a port (a port is 1–65535); write"
              + " jdbc:postgresql://HOST:PORT/DATABASE with PORT from 1 to 65535, or leave out"
              + " :PORT for 5432",
          port.isEmpty() ? "''" : port,
          masked(url));
    }
  }

  private static final String PREFIX = "jdbc:postgresql:";
  private static final Pattern PORT = Pattern.compile("0*[1-9][0-9]{0,4}");

  /** Whether the driver parses {@code url}, without the WARNING lines it logs when it does not. */
  private static boolean driverAccepts(String url) {
    Logger logger = Logger.getLogger("org.postgresql");
    Level level = logger.getLevel();
    logger.setLevel(Level.OFF);
    try {
      return org.postgresql.Driver.parseURL(url, null) != null;
    } finally {
      logger.setLevel(level);
    }
  }

  public JdbcTarget withUser(String user) {
    checkArgument(
        user != null && !user.isBlank(), "JdbcTarget.withUser: the user must not be empty");
    return toBuilder().setUser(user).build();
  }

  /** The password is the first line of {@code file} (read when a pool is opened). */
  public JdbcTarget withPasswordFile(Path file) {
    checkArgument(file != null, "JdbcTarget.withPasswordFile: no file");
    return toBuilder().setPasswordFile(file.toAbsolutePath().normalize().toString()).build();
  }

  /**
   * URL ({@link #masked}) and user, for messages and display data ({@code RevisionSink} shows it in
   * a runner's UI).
   */
  public String describe() {
    return masked(url()) + (user() == null ? "" : " as " + user());
  }

  // user info (//user:secret@host) and any parameter whose name ends in "password" (password=,
  // sslpassword=, in any case; PgJDBC separates parameters with & and also reads ;)
  private static final Pattern USER_INFO = Pattern.compile("(//)[^/@?#]*@");
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)([?&;][^&;#=]*password=)[^&;#]*");

  /**
   * {@code url} fit to show: user info and the values of {@code password=}, {@code sslpassword=}
   * (any parameter whose name ends in {@code password}) replaced by {@code <hidden>}.
   */
  public static String masked(String url) {
    String noUser = USER_INFO.matcher(url).replaceFirst("$1<hidden>@");
    return PASSWORD_PARAMETER.matcher(noUser).replaceAll("$1<hidden>");
  }

  /**
   * A connection pool of at most {@code maxConnections}, at least 2: migrating the schema ({@link
   * LedgerSchema}) holds two connections at once. It opens without the database being up
   * (connections are made when asked for, each attempt waiting at most {@code
   * connectTimeoutMillis}), so a caller that retries rides out a database restart.
   */
  public HikariDataSource openPool(String name, int maxConnections, long connectTimeoutMillis) {
    checkArgument(
        maxConnections >= 2,
        "JdbcTarget.openPool: at least 2 connections (Flyway holds two), got %s",
        maxConnections);
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url());
    // Named, so the pool loads the driver from the job's own class loader: on a Flink TaskManager
    // a second job (a shadow generation, a restore) found only the first job's registration in
    // DriverManager, which its class loader may not use ("No suitable driver").
    config.setDriverClassName("org.postgresql.Driver");
    if (user() != null) {
      config.setUsername(user());
    }
    String password = password();
    if (password != null) {
      config.setPassword(password);
    }
    config.setMaximumPoolSize(maxConnections);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(connectTimeoutMillis);
    config.setInitializationFailTimeout(-1);
    config.setAutoCommit(false);
    // Named, not read from the first connection: HikariCP reads the server's default once, and when
    // that read fails with a connection error (the database going away as the first connection is
    // made) it keeps -1 and sets it on every later connection, so the pool never works again
    // ("Transaction isolation level -1 not supported"). READ COMMITTED is PostgreSQL's default,
    // what
    // every statement here was written for; the ledger's readers ask for more where they need it.
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    return new HikariDataSource(config);
  }

  private @Nullable String password() {
    if (passwordFile() != null) {
      try {
        String text = Files.readString(Path.of(passwordFile()), StandardCharsets.UTF_8);
        int eol = text.indexOf('\n');
        return (eol < 0 ? text : text.substring(0, eol)).replace("\r", "");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the JDBC password file " + passwordFile(), e);
      }
    }
    String env = System.getenv(PASSWORD_ENV);
    return env == null || env.isEmpty() ? null : env;
  }
}
