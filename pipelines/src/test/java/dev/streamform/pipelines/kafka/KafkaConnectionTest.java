package dev.streamform.pipelines.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.policies.project.KafkaClientProperties;
import dev.streamform.policies.schema.ColumnType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.values.KV;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection's secrets reach the Kafka clients but nothing a runner shows: the display data of
 * every transform of a pipeline that reads and writes through it (KafkaIO lists its consumer and
 * producer configuration there), the pipeline options, and the connection's own text.
 */
class KafkaConnectionTest {
  private static final String SECRET = "sf-display-secret-7Q2x";
  private static final String TRUSTSTORE_SECRET = "sf-truststore-secret-9Kp";

  @TempDir Path dir;

  private KafkaConnection connection() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("deploy.properties"),
            String.join(
                "\n",
                "security.protocol=SASL_SSL",
                "sasl.mechanism=PLAIN",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"u\" password=\"${STREAMFORM_TEST_PASSWORD}\";",
                "ssl.truststore.password=${STREAMFORM_TEST_TRUSTSTORE_PASSWORD}",
                "ssl.truststore.location=/etc/kafka/truststore.p12",
                "client.id=${STREAMFORM_TEST_CLIENT_ID}",
                ""));
    // secrets are references (a literal one is refused); the references must not be shown either
    return KafkaConnection.of(
        "127.0.0.1:9094", KafkaClientProperties.read(file, "deploy.properties"));
  }

  @Test
  void secretsReachTheClientsButNotTheDisplayDataOrOptions() throws Exception {
    KafkaConnection connection = connection();
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    p.apply(KafkaSource.of(connection, "orders", Map.of("id", ColumnType.INT64), List.of("id")));
    p.apply(
            Create.of(KV.of("k", "v"))
                .withCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())))
        .apply(KafkaSinks.write(connection, "out"));

    StringBuilder shown = new StringBuilder();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getTransform() != null) {
              shown.append(DisplayData.from(node.getTransform())).append('\n');
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            shown.append(DisplayData.from(node.getTransform())).append('\n');
          }
        });
    shown
        .append(p.getOptions())
        .append('\n')
        .append(connection)
        .append('\n')
        .append(connection.consumerFactory())
        .append('\n')
        .append(connection.producerFactory());

    // the check can see what it looks for: shown settings are shown
    assertThat(shown.toString(), containsString("SASL_SSL"));
    assertThat(shown.toString(), containsString("/etc/kafka/truststore.p12"));
    assertThat(shown.toString(), not(containsString("STREAMFORM_TEST_PASSWORD")));
    assertThat(shown.toString(), not(containsString("STREAMFORM_TEST_TRUSTSTORE_PASSWORD")));

    // ... and the clients get every setting, references resolved where they are created
    Map<String, Object> client =
        connection.clientConfig(
            Map.of(
                    "STREAMFORM_TEST_CLIENT_ID",
                    "job-7",
                    "STREAMFORM_TEST_PASSWORD",
                    SECRET,
                    "STREAMFORM_TEST_TRUSTSTORE_PASSWORD",
                    TRUSTSTORE_SECRET)
                ::get);
    assertThat((String) client.get("sasl.jaas.config"), containsString(SECRET));
    assertEquals(TRUSTSTORE_SECRET, client.get("ssl.truststore.password"));
    assertEquals("job-7", client.get("client.id"));
    assertEquals("127.0.0.1:9094", client.get("bootstrap.servers"));
    // the factories travel to workers: they must serialize
    SerializableUtils.ensureSerializable(connection.consumerFactory());
    SerializableUtils.ensureSerializable(connection.<String, String>producerFactory());
  }

  /**
   * A secret named by a file reference ({@code ${file:PATH:KEY}}, Kafka's FileConfigProvider) is
   * read where a client is created: the pipeline as a runner receives it (every step, with its
   * consumer and producer factories, serialized) holds the reference, never the secret.
   */
  @Test
  void aFileReferenceIsResolvedWhereTheClientIsCreatedNotInTheSerializedPipeline()
      throws Exception {
    Path secrets =
        Files.writeString(dir.resolve("kafka-secrets.properties"), "password=" + SECRET + "\n");
    Path file =
        Files.writeString(
            dir.resolve("deploy.properties"),
            String.join(
                "\n",
                "security.protocol=SASL_SSL",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"u\" password=\"${file:"
                    + secrets
                    + ":password}\";",
                ""));
    KafkaConnection connection =
        KafkaConnection.of("127.0.0.1:9094", KafkaClientProperties.read(file, "deploy.properties"));
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    p.apply(KafkaSource.of(connection, "orders", Map.of("id", ColumnType.INT64), List.of("id")));
    p.apply(
            Create.of(KV.of("k", "v"))
                .withCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())))
        .apply(KafkaSinks.write(connection, "out"));

    // every transform Java-serialized as a runner ships it (Beam's own serialization compresses
    // the bytes, which would hide what this looks for)
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      p.traverseTopologically(
          new Pipeline.PipelineVisitor.Defaults() {
            @Override
            public void visitPrimitiveTransform(TransformHierarchy.Node node) {
              try {
                out.writeObject(node.getTransform());
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(node.getFullName(), e);
              }
            }
          });
    }
    String graph = bytes.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    assertThat("the check sees what it looks for", graph, containsString("${file:" + secrets));
    assertThat(graph, not(containsString(SECRET)));
    Map<String, Object> client = connection.clientConfig(Map.<String, String>of()::get);
    assertThat(
        (String) client.get("sasl.jaas.config"), containsString("password=\"" + SECRET + "\";"));
  }

  @Test
  void passwordTypedKafkaPropertiesCountAsSecrets() {
    assertTrue(KafkaConnection.isSecret("ssl.key.password"));
    assertTrue(KafkaConnection.isSecret("ssl.keystore.key"));
    assertTrue(KafkaConnection.isSecret("sasl.jaas.config"));
    assertFalse(KafkaConnection.isSecret("security.protocol"));
    assertFalse(KafkaConnection.isSecret("ssl.truststore.location"));
  }
}
