package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code --kafka-properties} file follows the rule of a project's file: a secret in it is a
 * reference ({@code ${NAME}} or {@code ${file:PATH:KEY}}), never the secret itself, which would
 * travel in the job a cluster stores and in its savepoints. Refused before anything connects.
 */
class KafkaPropertiesSecretsTest {
  private static final String SECRET = "sf-cli-secret-3Hw";

  @TempDir Path dir;

  @Test
  void aLiteralSecretInAKafkaPropertiesFileIsRefusedBeforeConnecting() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("deploy.properties"),
            String.join(
                "\n",
                "security.protocol=SASL_SSL",
                "sasl.mechanism=PLAIN",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"u\" password=\""
                    + SECRET
                    + "\";",
                ""));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "consume",
            "orders",
            "--kafka-properties",
            file.toString(),
            "--bootstrap-servers",
            "127.0.0.1:1",
            "--max-wait",
            "1s");
    assertEquals(1, status, err.toString());
    assertThat(
        err.toString(),
        containsString(
            file + ":3: key 'sasl.jaas.config': holds a secret written" + " into the file"));
    assertThat(err.toString(), not(containsString(SECRET)));
  }
}
