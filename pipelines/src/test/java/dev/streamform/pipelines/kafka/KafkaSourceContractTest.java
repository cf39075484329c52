package dev.streamform.pipelines.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.streamform.policies.project.KafkaClientProperties.Setting;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source reads from the earliest offsets, commits nothing and joins no consumer group (ADR 0142,
 * 0231): its own settings are applied after the client settings, shown or hidden, so none of them
 * overrides the contract (the client settings file refuses them too; this holds whatever reaches
 * the source). A hidden group.id is left to the consumer (KafkaIO gives its offset consumer one of
 * its own), which commits nothing with auto-commit off.
 */
class KafkaSourceContractTest {
  @TempDir Path dir;

  @Test
  void theSourcesSettingsWinOverTheShownClientSettings() {
    Map<String, Object> consumer =
        KafkaSource.consumerConfigUpdates(
            Map.of(
                "auto.offset.reset", "latest",
                "enable.auto.commit", "true",
                "group.id", "streamform-audit",
                "client.id", "mine"));

    assertEquals("earliest", consumer.get("auto.offset.reset"), consumer.toString());
    assertEquals("false", consumer.get("enable.auto.commit"), consumer.toString());
    assertFalse(consumer.containsKey("group.id"), consumer.toString());
    assertEquals("mine", consumer.get("client.id"), consumer.toString());
  }

  @Test
  void theSourcesSettingsWinOverTheHiddenClientSettings() throws Exception {
    Path values =
        Files.writeString(
            dir.resolve("values.properties"),
            "commit=true\nreset=latest\ngroup=streamform-audit\n");
    List<Setting> hidden =
        List.of(
            new Setting("enable.auto.commit", "${file:" + values + ":commit}", "k.properties", 1),
            new Setting("auto.offset.reset", "${file:" + values + ":reset}", "k.properties", 2),
            new Setting("group.id", "${file:" + values + ":group}", "k.properties", 3));

    Map<String, Object> consumer =
        KafkaConnection.sourceConsumerConfig(
            Map.of("auto.offset.reset", "earliest", "bootstrap.servers", "127.0.0.1:9092"), hidden);

    assertEquals("earliest", consumer.get("auto.offset.reset"), consumer.toString());
    assertEquals("false", consumer.get("enable.auto.commit"), consumer.toString());
    assertEquals("127.0.0.1:9092", consumer.get("bootstrap.servers"), consumer.toString());
  }
}
