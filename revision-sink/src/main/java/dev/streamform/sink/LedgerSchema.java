package dev.streamform.sink;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationState;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * The ledger's tables, in schema {@value #SCHEMA}, created and migrated by Flyway from {@code
 * db/migration/V*.sql} of this module. Migrating is idempotent and safe to run concurrently (Flyway
 * locks its history table): every sink instance migrates before its first write.
 *
 * <p>A command checks the schema before it migrates or reads ({@link #check}), and so does every
 * sink instance before it migrates ({@link #migrate(DataSource, String)}), for a job submitted
 * without the command line: a schema {@value #SCHEMA} that another application made, or one changed
 * outside the migrations, is refused in one message that names the database, rather than by the
 * first statement that trips on it.
 */
public final class LedgerSchema {
  /** The PostgreSQL schema that holds the ledger. */
  public static final String SCHEMA = "streamform";

  /** Flyway's history of the migrations it ran, in {@value #SCHEMA}. */
  private static final String HISTORY = "flyway_schema_history";

  /**
   * The tables and views the migrations create, each with its columns in order: one list, checked
   * against a freshly migrated database by LedgerSchemaTest, so it cannot drift from the
   * migrations.
   */
  private static final String EXPECTED_COLUMNS = "db/ledger-columns.txt";

  /** How many of another application's tables or migrations a refusal names. */
  private static final int NAMED = 5;

  private LedgerSchema() {}

  /** Why a command refuses the database: the message, whole, naming the database. */
  public static final class Unusable extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Unusable(String message) {
      super(message);
    }
  }

  /**
   * Creates or migrates the ledger's tables, unchecked; returns how many migrations ran (0 when up
   * to date). The commands and the sinks migrate with {@link #migrate(DataSource, String)}.
   */
  public static int migrate(DataSource dataSource) {
    MigrateResult result = flyway(dataSource).migrate();
    return result.migrationsExecuted;
  }

  /**
   * As {@link #migrate(DataSource)} for a command or a sink: refuses another application's schema
   * before migrating, and {@link #check}s the whole schema after (a column dropped by hand is only
   * seen once nothing is pending). The tables and columns are not looked at before migrating: while
   * another writer of the same database migrates (sixteen sink instances starting at once), its
   * tables are half made, which Flyway's lock hides only from a caller that migrates.
   *
   * @param database the database as messages name it ({@link JdbcTarget#describe()})
   * @throws Unusable when the schema is another application's or was changed by hand
   */
  public static int migrate(DataSource dataSource, String database) throws SQLException {
    Optional<String> foreign = examine(dataSource, database, false).refusal();
    if (foreign.isPresent()) {
      throw new Unusable(foreign.get());
    }
    return bringUpToDate(dataSource, database);
  }

  /**
   * As {@link #migrate(DataSource, String)} for a caller that has just {@link #check}ed the schema
   * and been told what is pending: migrates, then checks the whole schema, without checking it once
   * more first.
   *
   * @throws Unusable when the schema, migrated, is not what the migrations make
   */
  public static int bringUpToDate(DataSource dataSource, String database) throws SQLException {
    int ran = migrate(dataSource);
    check(dataSource, database);
    return ran;
  }

  /**
   * The migrations a ledger written by an older Streamform awaits: how many, the version it is at
   * and the version they bring it to.
   */
  public record Pending(int count, String from, String to) {}

  /**
   * What {@code dataSource}'s ledger awaits of this Streamform's migrations; empty when it is up to
   * date, or when there is no migration history (an empty database).
   */
  public static Optional<Pending> pending(DataSource dataSource) {
    return pending(flyway(dataSource).info());
  }

  private static Optional<Pending> pending(MigrationInfoService info) {
    MigrationInfo[] pending = info.pending();
    if (pending.length == 0) {
      return Optional.empty();
    }
    MigrationInfo current = info.current();
    return Optional.of(
        new Pending(
            pending.length,
            current == null || current.getVersion() == null
                ? "none"
                : current.getVersion().toString(),
            pending[pending.length - 1].getVersion().toString()));
  }

  /**
   * Refuses a schema {@value #SCHEMA} that Streamform cannot use: tables but no migration history
   * (another application's tables), a history with migrations that are not Streamform's, or, when
   * no migration is pending, a table, view or column of the migrations missing (changed by hand).
   * An empty database, and a ledger that only awaits migrations, pass (a command that opens an
   * existing ledger then brings it up to date: ADR 0144).
   *
   * @param database the database as messages name it ({@link JdbcTarget#describe()})
   * @return what the ledger awaits, as {@link #pending(DataSource)} says, from the same look at
   *     Flyway's history
   * @throws Unusable with the message, naming {@code database}
   */
  public static Optional<Pending> check(DataSource dataSource, String database)
      throws SQLException {
    Examined examined = examine(dataSource, database, true);
    if (examined.refusal().isPresent()) {
      throw new Unusable(examined.refusal().get());
    }
    return examined.pending();
  }

  static Optional<String> refusal(DataSource dataSource, String database) throws SQLException {
    return examine(dataSource, database, true).refusal();
  }

  /** What {@link #examine} found: the refusal, if any, else the migrations pending. */
  private record Examined(Optional<String> refusal, Optional<Pending> pending) {
    static Examined refused(String refusal) {
      return new Examined(Optional.of(refusal), Optional.empty());
    }
  }

  /**
   * As {@link #check}, the tables and columns looked at only when {@code withColumns}; Flyway's
   * history is read once, for both the refusal and what is pending.
   */
  private static Examined examine(DataSource dataSource, String database, boolean withColumns)
      throws SQLException {
    Map<String, List<String>> found = columnsOf(dataSource);
    if (found.isEmpty()) {
      return new Examined(Optional.empty(), Optional.empty());
    }
    String elsewhere =
        ": use another database for Streamform's ledger (it is always in schema " + SCHEMA + ")";
    if (!found.containsKey(HISTORY)) {
      return Examined.refused(
          "schema "
              + SCHEMA
              + " in "
              + database
              + " holds tables Streamform did not create ("
              + few(new ArrayList<>(found.keySet()))
              + ") and no migration history of Streamform"
              + elsewhere);
    }
    MigrationInfoService info = flyway(dataSource).info();
    List<String> foreign =
        Arrays.stream(info.all())
            .filter(LedgerSchema::notStreamforms)
            .map(MigrationInfo::getScript)
            .collect(Collectors.toList());
    if (!foreign.isEmpty()) {
      return Examined.refused(
          "schema "
              + SCHEMA
              + " in "
              + database
              + " belongs to another application: its migration history holds migrations that"
              + " are not Streamform's ("
              + few(foreign)
              + ")"
              + elsewhere);
    }
    Optional<Pending> pending = pending(info);
    if (!withColumns || pending.isPresent()) {
      // an older ledger: the next migration brings it up to date
      return new Examined(Optional.empty(), pending);
    }
    List<String> missing = new ArrayList<>();
    expectedColumns()
        .forEach(
            (table, columns) -> {
              List<String> present = found.get(table);
              if (present == null) {
                missing.add(SCHEMA + "." + table + " in " + database + " is missing");
                return;
              }
              List<String> lacking =
                  columns.stream().filter(c -> !present.contains(c)).collect(Collectors.toList());
              if (!lacking.isEmpty()) {
                missing.add(
                    SCHEMA
                        + "."
                        + table
                        + " in "
                        + database
                        + " lacks column"
                        + (lacking.size() == 1 ? " " : "s ")
                        + String.join(", ", lacking));
              }
            });
    if (!missing.isEmpty()) {
      return Examined.refused(
          String.join("; ", missing) + ": the schema was changed outside its migrations");
    }
    return new Examined(
        unreadable(dataSource, database, expectedColumns().keySet()), Optional.empty());
  }

  /**
   * The refusal of a user without SELECT on some of {@code tables} (all present): which, and the
   * grant their owner can run. A user granted SELECT on the tables of {@value #SCHEMA} before an
   * upgrade has none on the tables its migrations add.
   */
  private static Optional<String> unreadable(
      DataSource dataSource, String database, Collection<String> tables) throws SQLException {
    List<String> unreadable = new ArrayList<>();
    Set<String> owners = new TreeSet<>();
    String user;
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT r.relname, pg_get_userbyid(r.relowner), quote_ident(current_user) FROM"
                    + " pg_catalog.pg_class r JOIN pg_catalog.pg_namespace n ON n.oid ="
                    + " r.relnamespace WHERE n.nspname = ? AND r.relname = ANY (?) AND NOT"
                    + " has_table_privilege(r.oid, 'SELECT') ORDER BY r.relname")) {
      s.setString(1, SCHEMA);
      s.setArray(2, c.createArrayOf("text", tables.toArray()));
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        user = rs.getString(3);
        do {
          unreadable.add(SCHEMA + "." + rs.getString(1));
          owners.add(rs.getString(2));
        } while (rs.next());
      }
    }
    boolean one = unreadable.size() == 1;
    String named = String.join(", ", unreadable);
    return Optional.of(
        user
            + " may not read "
            + named
            + " in "
            + database
            + " (no SELECT privilege on "
            + (one ? "it" : "them")
            + ", as on a table a migration added after the user's grants): "
            + (one ? "its" : "their")
            + " owner"
            + (owners.size() == 1 ? " " : "s ")
            + String.join(", ", owners)
            + " can run GRANT SELECT ON "
            + named
            + " TO "
            + user);
  }

  /**
   * An applied migration that no migration of this module accounts for: none has its version (a
   * missing one), or the one that has it is another script (Flyway pairs them by version alone), or
   * it is a baseline, which Streamform never makes. A version above all of this module's passes: a
   * newer Streamform's migration, which Flyway's own validation lets an older one run beside.
   */
  private static boolean notStreamforms(MigrationInfo m) {
    if (!m.isApplied() || m.getType().isSynthetic()) {
      return false; // synthetic: Flyway's own row for the schema it created
    }
    MigrationState state = m.getState();
    if (state == MigrationState.FUTURE_SUCCESS || state == MigrationState.FUTURE_FAILED) {
      return false;
    }
    if (m.getType().isBaseline() || !state.isResolved()) {
      return true;
    }
    String resolved = m.getPhysicalLocation() == null ? "" : m.getPhysicalLocation();
    return !resolved.isEmpty()
        && !(resolved.endsWith("/" + m.getScript()) || resolved.endsWith("\\" + m.getScript()));
  }

  private static String few(List<String> names) {
    return names.size() <= NAMED
        ? String.join(", ", names)
        : String.join(", ", names.subList(0, NAMED)) + " and " + (names.size() - NAMED) + " more";
  }

  /**
   * The tables and views of {@value #SCHEMA}, by name, each with its columns in order, read from
   * PostgreSQL's catalogue: every one, whatever the user's privileges (information_schema shows
   * only those the user has a privilege on, so a table a migration added after a reader's grant
   * looked missing to that reader). The relation kinds are information_schema.tables' own: tables,
   * partitioned tables, views and foreign tables.
   */
  static Map<String, List<String>> columnsOf(DataSource dataSource) throws SQLException {
    Map<String, List<String>> out = new TreeMap<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT r.relname, a.attname FROM pg_catalog.pg_class r JOIN"
                    + " pg_catalog.pg_namespace n ON n.oid = r.relnamespace LEFT JOIN"
                    + " pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT"
                    + " a.attisdropped WHERE n.nspname = ? AND r.relkind IN ('r', 'p', 'v', 'f')"
                    + " ORDER BY r.relname, a.attnum")) {
      s.setString(1, SCHEMA);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          List<String> columns = out.computeIfAbsent(rs.getString(1), t -> new ArrayList<>());
          if (rs.getString(2) != null) {
            columns.add(rs.getString(2));
          }
        }
      }
    }
    return out;
  }

  /**
   * The tables and views the migrations create, with their columns: {@value #EXPECTED_COLUMNS}, a
   * line {@code table: column column ...} each (Flyway's history is not among them).
   */
  static Map<String, List<String>> expectedColumns() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    try (InputStream in =
        LedgerSchema.class.getClassLoader().getResourceAsStream(EXPECTED_COLUMNS)) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int colon = line.indexOf(':');
        String columns = line.substring(colon + 1).trim();
        out.put(
            line.substring(0, colon).trim(),
            columns.isEmpty() ? List.of() : List.of(columns.split(" +")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Flyway flyway(DataSource dataSource) {
    return Flyway.configure(LedgerSchema.class.getClassLoader())
        .dataSource(dataSource)
        .schemas(SCHEMA)
        .defaultSchema(SCHEMA)
        .locations("classpath:db/migration")
        .load();
  }
}
