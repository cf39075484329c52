package dev.streamform.pipelines.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.policies.project.KafkaClientProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka client is created (in process, no broker: Kafka reads its settings when it is
 * constructed) from settings whose secrets hold characters JAAS quotes, or whose files are wrong;
 * the one-line message names the setting's file, line and key, and never a piece of a secret.
 */
class KafkaRefusedExceptionTest {
  @TempDir Path dir;

  private KafkaConnection connection(String... lines) throws Exception {
    Path file =
        Files.writeString(dir.resolve("deploy.properties"), String.join("\n", lines) + "\n");
    return KafkaConnection.of("127.0.0.1:1", KafkaClientProperties.read(file, "deploy.properties"));
  }

  private String secretsFile(String password) throws Exception {
    Path secrets = dir.resolve("secrets.properties");
    java.util.Properties p = new java.util.Properties();
    p.setProperty("password", password);
    try (var out = Files.newOutputStream(secrets)) {
      p.store(out, null);
    }
    return secrets.toString();
  }

  private static KafkaConsumer<byte[], byte[]> consumer(KafkaConnection connection) {
    Map<String, Object> config = new HashMap<>(connection.clientConfig());
    return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @Test
  void aPasswordWithQuotesAndBackslashesReachesKafkaAsOneValue() throws Exception {
    String secrets = secretsFile("Leak\"Frag1 Frag2Secret\\x");
    KafkaConnection connection =
        connection(
            "security.protocol=SASL_PLAINTEXT",
            "sasl.mechanism=PLAIN",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"u\" password=\"${file:"
                + secrets
                + ":password}\";");
    consumer(connection).close(); // threw: Value not specified for key 'Frag1' in JAAS config
  }

  @Test
  void kafkasJaasErrorNamesTheFileLineAndKeyButNoPieceOfTheSecret() throws Exception {
    String secrets = secretsFile("Frag3word Frag4Secret");
    KafkaConnection connection =
        connection(
            "security.protocol=SASL_PLAINTEXT",
            "sasl.mechanism=PLAIN",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=x${file:"
                + secrets
                + ":password} password=\"${file:"
                + secrets
                + ":password}\";");
    KafkaException e = assertThrows(KafkaException.class, () -> consumer(connection).close());
    String message = KafkaRefusedException.of("create a consumer", connection, e).getMessage();
    assertThat(message, not(containsString("Frag3")));
    assertThat(message, not(containsString("Frag4")));
    assertThat(message, containsString("sasl.jaas.config (deploy.properties:3)"));
  }

  @Test
  void aTruststoreKafkaCannotLoadIsNamedWithItsKeyFileAndLine() throws Exception {
    Path notPem = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");
    KafkaConnection connection =
        connection(
            "security.protocol=SSL",
            "ssl.truststore.type=PEM",
            "ssl.truststore.location=" + notPem);
    KafkaException e = assertThrows(KafkaException.class, () -> consumer(connection).close());
    String message = KafkaRefusedException.of("create a consumer", connection, e).getMessage();
    assertThat(
        message, containsString("ssl.truststore.location (deploy.properties:3) names " + notPem));
  }

  @Test
  void aWorkersConsumerFactoryFailsWithoutAPieceOfTheSecret() throws Exception {
    String secrets = secretsFile("Frag5word Frag6Secret");
    KafkaConnection connection =
        connection(
            "security.protocol=SASL_PLAINTEXT",
            "sasl.mechanism=PLAIN",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=x${file:"
                + secrets
                + ":password} password=\"${file:"
                + secrets
                + ":password}\";");
    // what KafkaIO passes: the shown settings (connection.shownConfig()) and its deserializers
    Map<String, Object> kafkaIoConfig =
        Map.of(
            "bootstrap.servers", "127.0.0.1:1",
            "security.protocol", "SASL_PLAINTEXT",
            "sasl.mechanism", "PLAIN",
            "key.deserializer", ByteArrayDeserializer.class,
            "value.deserializer", ByteArrayDeserializer.class);
    KafkaException e =
        assertThrows(KafkaException.class, () -> connection.consumerFactory().apply(kafkaIoConfig));
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    assertThat(all.toString(), not(containsString("Frag5")));
    assertThat(all.toString(), not(containsString("Frag6")));
  }
}
