package dev.streamform.runners.postgres;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code runners-config/bin/postgres start}, a query, {@code stop}: the script runs {@link
 * LocalPostgres} as a single source file, which compiles only if that file uses nothing else of its
 * package (a change that did broke the README's local server while every other test passed). Its
 * own port, configuration, data and state folders, so a developer's server on 5432 is neither hit
 * nor stopped; stopped by its pid file whatever happens.
 */
class PostgresScriptTest {
  private static final Path SCRIPT = Path.of("../bin/postgres").toAbsolutePath().normalize();

  @TempDir Path work;

  @Test
  void theScriptStartsAServerThatAnswersAndStopsIt() throws Exception {
    int port = LocalPostgres.freePort();
    Path config = work.resolve("postgres.properties");
    Files.writeString(config, "port=" + port + "\ndata_dir=" + work.resolve("data") + "\n");
    try {
      String started = script("start", config, 180);
      assertThat(started, containsString("postgres: up in"));
      try (Connection c =
              DriverManager.getConnection(
                  "jdbc:postgresql://127.0.0.1:" + port + "/postgres", LocalPostgres.USER, "");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
        rs.next();
        assertThat(rs.getInt(1), equalTo(42));
      }
    } finally {
      script("stop", config, 90);
    }
  }

  private String script(String command, Path config, long timeoutSeconds)
      throws IOException, InterruptedException {
    Path log = work.resolve(command + ".log");
    ProcessBuilder builder =
        new ProcessBuilder("bash", SCRIPT.toString(), command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("STREAMFORM_POSTGRES_STATE_DIR", work.resolve("state").toString());
    builder.environment().put("STREAMFORM_POSTGRES_CONFIG", config.toString());
    Process process = builder.start();
    boolean exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    String output = Files.readString(log, StandardCharsets.UTF_8);
    if (!exited) {
      process.destroy();
      throw new AssertionError(
          "bin/postgres " + command + " took over " + timeoutSeconds + " s:\n" + output);
    }
    assertThat("bin/postgres " + command + ":\n" + output, process.exitValue(), equalTo(0));
    return output;
  }
}
