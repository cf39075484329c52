package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka.properties:} of a kafka source: the file is checked with the project (file, line,
 * fix), secrets in it must be environment references, and references resolve with file and line in
 * the error when a variable is unset.
 */
class KafkaClientPropertiesTest {
  @TempDir Path dir;

  private static final String JAAS =
      "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
          + "    username=\"streamform\" password=\"${KAFKA_PASSWORD}\";\n";

  private ProjectFolder sourceWith(String properties) {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .sources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: orders
                    kafka.properties: conf/kafka.properties
                    schema:
                      customer_id: int64
                      amount: decimal(12,2)
                      ordered_at: timestamp
                    event_time: ordered_at
                """);
    return properties == null ? project : project.write("conf/kafka.properties", properties);
  }

  @Test
  void aSourceReadsItsSettingsWithReferencesKeptAsWritten() throws Exception {
    Project project =
        sourceWith(
                "# managed Kafka\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\n"
                    + JAAS)
            .load();
    assertEquals("conf/kafka.properties", project.sources().get("orders").kafkaProperties().get());
    KafkaClientProperties read =
        KafkaClientProperties.read(dir.resolve("conf/kafka.properties"), "conf/kafka.properties");
    assertEquals(
        List.of("security.protocol", "sasl.mechanism", "sasl.jaas.config"),
        read.settings().stream().map(KafkaClientProperties.Setting::key).toList());
    KafkaClientProperties.Setting jaas = read.get("sasl.jaas.config").get();
    assertEquals(4, jaas.line(), "a continued value keeps the line it starts on");
    Map<String, String> resolved = read.resolve(Map.of("KAFKA_PASSWORD", "pw-1")::get);
    assertThat(
        resolved.get("sasl.jaas.config"),
        containsString("username=\"streamform\" password=\"pw-1\";"));
    assertEquals("SASL_SSL", resolved.get("security.protocol"));
    assertThat(
        "toString hides the secret setting",
        read.toString(),
        containsString("sasl.jaas.config=<hidden>"));
  }

  @Test
  void anUnsetVariableNamesFileLineKeyAndVariable() throws Exception {
    KafkaClientProperties read =
        KafkaClientProperties.read(
            sourceWith("security.protocol=SASL_SSL\n" + JAAS)
                .dir()
                .resolve("conf/kafka.properties"),
            "conf/kafka.properties");
    KafkaClientProperties.UnsetVariableException e =
        assertThrows(
            KafkaClientProperties.UnsetVariableException.class,
            () -> read.resolve(Map.<String, String>of()::get));
    assertThat(
        e.getMessage(),
        containsString(
            "conf/kafka.properties:2: sasl.jaas.config names ${KAFKA_PASSWORD}, which is not set in"
                + " the environment — export KAFKA_PASSWORD"));
  }

  @Test
  void aSecretWrittenIntoAProjectFileIsAProblem() {
    List<String> problems =
        sourceWith(
                "security.protocol=SASL_SSL\n"
                    + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
                    + " required username=\"u\" password=\"hunter2\";\n"
                    + "ssl.truststore.password=changeit\n")
            .problems();
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:2: key 'sasl.jaas.config': holds a secret written into the"
                    + " file")));
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:3: key 'ssl.truststore.password': holds a secret written"
                    + " into the file (files are shared, and a literal would travel in the job and"
                    + " its savepoints) — write the secret as a reference: an environment"
                    + " variable")));
    assertThat(
        "no problem repeats the secret",
        String.join("\n", problems),
        not(containsString("hunter2")));
  }

  @Test
  void anyJaasOptionThatCarriesASecretMustBeAReference() {
    List<String> problems =
        sourceWith(
                "security.protocol=SASL_SSL\n"
                    + "sasl.mechanism=OAUTHBEARER\n"
                    + "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
                    + " required clientId=\"streamform\" clientSecret=\"oauth-s3cret\""
                    + " scope=\"kafka\";\n")
            .problems();
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:3: key 'sasl.jaas.config': holds a secret written into the"
                    + " file")));
    assertThat(
        "no problem repeats the secret",
        String.join("\n", problems),
        not(containsString("oauth-s3cret")));
  }

  @Test
  void anEmptyValueKafkaTakesIsAccepted() throws Exception {
    // an empty ssl.endpoint.identification.algorithm turns hostname checking off in Kafka;
    // removing the line brings Kafka's default (https) back
    Project project =
        sourceWith("security.protocol=SSL\nssl.endpoint.identification.algorithm=\n").load();
    assertEquals("conf/kafka.properties", project.sources().get("orders").kafkaProperties().get());
    List<String> refused = sourceWith("request.timeout.ms=\n").problems();
    assertThat(refused, hasItem(containsString("key 'request.timeout.ms'")));
  }

  @Test
  void aSingleQuotedReferenceInAJaasOptionIsAReference() throws Exception {
    Project accepted =
        sourceWith(
                "security.protocol=SASL_SSL\n"
                    + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
                    + " required username=\"${U}\" password='${P}';\n")
            .load();
    assertEquals("conf/kafka.properties", accepted.sources().get("orders").kafkaProperties().get());
    List<String> literal =
        sourceWith(
                "security.protocol=SASL_SSL\n"
                    + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
                    + " required username=\"${U}\" password='hunter 2';\n")
            .problems();
    assertThat(literal, hasItem(containsString("holds a secret written into the file")));
  }

  @Test
  void aJaasFlagOrEndpointNamedWithTokenIsNoSecret() throws Exception {
    Project accepted =
        sourceWith(
                "security.protocol=SASL_SSL\n"
                    + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule"
                    + " required username=\"${KAFKA_TOKEN_ID}\" password=\"${KAFKA_TOKEN_HMAC}\""
                    + " tokenauth=\"true\""
                    + " oauth.token.endpoint.uri=\"https://sso.example.net/token\";\n")
            .load();
    assertEquals("conf/kafka.properties", accepted.sources().get("orders").kafkaProperties().get());
    List<String> literal =
        sourceWith(
                "security.protocol=SASL_SSL\n"
                    + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule"
                    + " required username=\"u\" password=\"${P}\""
                    + " oauth.refresh.token=\"abc123\";\n")
            .problems();
    assertThat(literal, hasItem(containsString("(option oauth.refresh.token)")));
  }

  @Test
  void aFileThatIsNotUtf8NamesItsLineAndByte() throws Exception {
    Path file = dir.resolve("deploy.properties");
    Files.write(
        file,
        "security.protocol=SSL\nclient.id=caf\u00e9\n"
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> KafkaClientProperties.read(file, "deploy.properties"));
    assertThat(
        e.getMessage(),
        containsString(
            "deploy.properties:2: is not UTF-8 text: byte 14 of the line is 0xE9, which UTF-8"
                + " does not allow there"));
  }

  @Test
  void aFileOutsideProjectsMayNotHoldLiteralSecretsEither() throws Exception {
    Path file = dir.resolve("deploy.properties");
    Files.writeString(file, "ssl.truststore.password=changeit\nssl.keystore.key=${KEY_PEM}\n");
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> KafkaClientProperties.read(file, "deploy.properties"));
    assertThat(
        e.getMessage(),
        containsString(
            "deploy.properties:1: key 'ssl.truststore.password': holds a secret written into the"
                + " file"));
    assertThat(e.getMessage(), not(containsString("deploy.properties:2")));
  }

  @Test
  void aFileReferenceReadsItsKeyWithKafkasFileConfigProvider() throws Exception {
    Path secrets = Files.writeString(dir.resolve("secrets.properties"), "password=pw-from-file\n");
    Path file =
        Files.writeString(
            dir.resolve("deploy.properties"),
            "ssl.key.password=${file:"
                + secrets
                + ":password}\n"
                + "ssl.keystore.password=${file:"
                + secrets
                + ":missing}\n"
                + "ssl.truststore.password=${file:relative.properties:password}\n");
    InvalidProjectException relative =
        assertThrows(
            InvalidProjectException.class,
            () -> KafkaClientProperties.read(file, "deploy.properties"));
    assertThat(
        relative.getMessage(),
        containsString(
            "deploy.properties:3: key 'ssl.truststore.password': has a"
                + " malformed reference '${file:relative.properties:password}'"));
    Files.writeString(
        file, Files.readString(file).lines().limit(2).reduce("", (a, b) -> a + b + "\n"));
    KafkaClientProperties read = KafkaClientProperties.read(file, "deploy.properties");
    assertEquals(
        "pw-from-file",
        KafkaClientProperties.resolve(
                List.of(read.get("ssl.key.password").get()), Map.<String, String>of()::get)
            .get("ssl.key.password"));
    KafkaClientProperties.UnsetVariableException e =
        assertThrows(
            KafkaClientProperties.UnsetVariableException.class,
            () -> read.resolve(Map.<String, String>of()::get));
    assertThat(
        e.getMessage(),
        containsString(
            "deploy.properties:2: ssl.keystore.password names ${file:"
                + secrets
                + ":missing}, which has no key missing"));
    assertThat(e.getMessage(), not(containsString("pw-from-file")));
  }

  @Test
  void malformedReferencesReservedKeysEmptyValuesAndRepeatsAreProblems() {
    List<String> problems =
        sourceWith(
                "sasl.jaas.config=x required password=\"${KAFKA PASSWORD}\";\n"
                    + "key.deserializer=org.example.Mine\n"
                    + "request.timeout.ms=\n"
                    + "security.protocol=SSL\n"
                    + "security.protocol=SASL_SSL\n")
            .problems();
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:1: key 'sasl.jaas.config': has a malformed reference"
                    + " '${KAFKA PASSWORD}'")));
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:2: key 'key.deserializer': is set by Streamform")));
    assertThat(
        problems,
        hasItem(containsString("conf/kafka.properties:3: key 'request.timeout.ms': has no value")));
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:5: key 'security.protocol': is set twice (also on line"
                    + " 4)")));
  }

  @Test
  void aMissingFileIsReportedAtItsLineOfSourcesYml() {
    assertThat(
        sourceWith(null).problems(),
        hasItem(
            containsString(
                "sources.yml:5: source 'orders', key 'kafka.properties': 'conf/kafka.properties' is"
                    + " not a file in the project folder")));
  }

  @Test
  void aDollarDollarIsALiteralAndLaterFilesWin() throws Exception {
    Path a = Files.writeString(dir.resolve("a.properties"), "client.id=a-$${x}\nacks=all\n");
    Path b = Files.writeString(dir.resolve("b.properties"), "client.id=b\n");
    KafkaClientProperties merged =
        KafkaClientProperties.read(a, "a.properties")
            .overriddenBy(KafkaClientProperties.read(b, "b.properties"));
    assertEquals(
        Map.of("client.id", "b", "acks", "all"), merged.resolve(Map.<String, String>of()::get));
    assertEquals(
        "a-${x}",
        KafkaClientProperties.read(a, "a.properties")
            .resolve(Map.<String, String>of()::get)
            .get("client.id"));
  }

  @Test
  void connectionSettingsAreNotPartOfTheSourceDigest() throws Exception {
    Project with = sourceWith("security.protocol=SASL_SSL\n").load();
    String digestWith =
        dev.streamform.policies.digest.DeclarationDigest.of(with.sources().get("orders"));
    Path other = Files.createTempDirectory(dir, "plain");
    Project without =
        ProjectFolder.seed(other)
            .sources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: orders
                    schema:
                      customer_id: int64
                      amount: decimal(12,2)
                      ordered_at: timestamp
                    event_time: ordered_at
                """)
            .load();
    assertEquals(
        dev.streamform.policies.digest.DeclarationDigest.of(without.sources().get("orders")),
        digestWith);
  }

  @Test
  void aLineThatIsNotKeyEqualsValueIsAProblemWithItsLine() {
    List<String> problems =
        sourceWith(
                "# comment\n"
                    + "! also a comment\n"
                    + "\n"
                    + "security.protocol=SASL_SSL\n"
                    + "not a property line without equals\n"
                    + "linger.ms 5\n"
                    + "client.id = streamform\n"
                    + "sasl.mechanism=\\\n"
                    + "    PLAIN\n")
            .problems();
    assertThat(problems, hasItem(containsString("conf/kafka.properties:5: ")));
    assertThat(problems, hasItem(containsString("conf/kafka.properties:6: ")));
    assertThat(problems, hasItem(containsString("— write linger.ms=5, or start the line with #")));
    assertEquals(2, problems.size(), problems.toString());
  }

  @Test
  void aResolvedJaasValueIsEscapedSoKafkasParserReadsItBack() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("deploy.properties"),
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=${KAFKA_USER} password=\"${KAFKA_PASSWORD}\" other='${OTHER}';\n");
    String password = "Leak\"Frag1 Frag2Secret\\end";
    String other = "it's \"x\"";
    Map<String, String> resolved =
        KafkaClientProperties.read(file, "deploy.properties")
            .resolve(
                Map.of("KAFKA_USER", "a user", "KAFKA_PASSWORD", password, "OTHER", other)::get);
    Map<String, ?> options =
        org.apache.kafka.common.security.JaasContext.loadClientContext(
                Map.of(
                    "sasl.jaas.config",
                    new org.apache.kafka.common.config.types.Password(
                        resolved.get("sasl.jaas.config"))))
            .configurationEntries()
            .get(0)
            .getOptions();
    assertEquals(password, options.get("password"));
    assertEquals("a user", options.get("username"));
    assertEquals(other, options.get("other"));
  }

  @Test
  void aKeyNoKafkaClientKnowsIsRefusedWithADidYouMean() {
    List<String> problems =
        sourceWith("securty.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n").problems();
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:1: key 'securty.protocol': is not a setting of Kafka's"
                    + " consumer, producer or admin client")));
    assertThat(problems, hasItem(containsString("did you mean 'security.protocol'?")));
    assertEquals(1, problems.size(), problems.toString());
  }

  @Test
  void aValueKafkaCannotParseIsRefusedByKafkasOwnConfigDef() {
    List<String> problems =
        sourceWith(
                "request.timeout.ms=abc\nsecurity.protocol=SASL_SSLX\nacks=all\n"
                    + "client.id=${CLIENT_ID}\nlinger.ms=5\n")
            .problems();
    assertThat(
        problems, hasItem(containsString("conf/kafka.properties:1: key 'request.timeout.ms': ")));
    assertThat(
        problems, hasItem(containsString("conf/kafka.properties:2: key 'security.protocol': ")));
    assertThat(problems.toString(), containsString("SASL_SSL"));
    assertEquals(2, problems.size(), problems.toString());
  }

  @Test
  void aUrlKeyThatMerelyContainsTokenIsNotASecretAndTheFixNamesAVariableFromTheKey() {
    List<String> problems =
        sourceWith(
                "sasl.oauthbearer.token.endpoint.url=https://idp.example.net/token\n"
                    + "ssl.key.password=changeit\n"
                    + "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer"
                    + ".OAuthBearerLoginModule required clientId=\"c\" clientSecret=\"s3\";\n")
            .problems();
    assertThat(problems.toString(), not(containsString("sasl.oauthbearer.token.endpoint.url")));
    assertThat(problems, hasItem(containsString("ssl.key.password=${KAFKA_SSL_KEY_PASSWORD}")));
    assertThat(problems, hasItem(containsString("clientSecret=\"${KAFKA_CLIENT_SECRET}\"")));
    assertEquals(2, problems.size(), problems.toString());
    assertEquals(false, KafkaClientProperties.isSecret("sasl.oauthbearer.token.endpoint.url"));
    assertEquals(true, KafkaClientProperties.isSecret("my.handler.token"));
  }

  @Test
  void aTruststoreThatIsNotThereIsRefusedWithItsLineAndFix() throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "not really a pem");
    List<String> problems =
        sourceWith(
                "ssl.truststore.location=/nope/ca.pem\n"
                    + "ssl.keystore.location="
                    + ca
                    + "\nssl.truststore.type=PEM\n")
            .problems();
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:1: key 'ssl.truststore.location': names /nope/ca.pem,"
                    + " which does not exist")));
    assertEquals(1, problems.size(), problems.toString());
  }

  @Test
  void aRelativeStoreIsTheFoldersOfItsPropertiesFileAndKafkaGetsItsAbsolutePath() throws Exception {
    // the working folder is the repository's module, not dir: a store read from it is not found
    Path conf = Files.createDirectories(dir.resolve("conf"));
    Path ca = Files.writeString(conf.resolve("ca.pem"), "not really a pem");
    Path file =
        Files.writeString(
            conf.resolve("client.properties"),
            "ssl.truststore.location=ca.pem\n"
                + "ssl.keystore.location=${KEYSTORE}\n"
                + "ssl.truststore.type=PEM\n");
    KafkaClientProperties read = KafkaClientProperties.read(file, "client.properties");
    Map<String, String> env = Map.of("KEYSTORE", "../keys/client.p12");
    Map<String, String> resolved = read.resolve(env::get);
    assertEquals(ca.toAbsolutePath().toString(), resolved.get("ssl.truststore.location"));
    assertEquals(
        dir.resolve("keys/client.p12").toAbsolutePath().toString(),
        resolved.get("ssl.keystore.location"),
        "a reference's relative path is the file's folder's too");
    assertEquals(
        ca.toAbsolutePath().toString(),
        read.get("ssl.truststore.location").get().value(),
        "a literal is written absolute, so KafkaIO's shown settings carry it too");
    assertEquals(
        List.of(
            "client.properties:2: key 'ssl.keystore.location': names "
                + dir.resolve("keys/client.p12").toAbsolutePath()
                + ", which does not exist"),
        read.locationProblems(env::get).stream()
            .map(p -> p.toString().substring(0, p.toString().indexOf(" — ")))
            .toList(),
        "the store is found; the missing keystore is named with the path looked at");
  }

  @Test
  void aSourcesRelativeStoreIsCheckedInItsFilesFolder() throws Exception {
    ProjectFolder project = sourceWith("ssl.truststore.location=ca.pem\nssl.truststore.type=PEM\n");
    assertThat(
        project.problems(),
        hasItem(
            containsString(
                "conf/kafka.properties:1: key 'ssl.truststore.location': names "
                    + project.dir().resolve("conf/ca.pem").toAbsolutePath()
                    + ", which does not exist")));
    project.write("conf/ca.pem", "not really a pem");
    project.load(); // the store beside the file is found, wherever the check runs from
  }

  @Test
  void aPlugInClassNotOnTheClassPathIsSaidSoWithWhereToPutItsJar() {
    List<String> problems =
        sourceWith(
                "security.protocol=SASL_SSL\n"
                    + "sasl.login.callback.handler.class="
                    + "io.strimzi.kafka.oauth.client.JaasClientOauthLoginCallbackHandler\n"
                    + "sasl.client.callback.handler.class="
                    + "org.apache.kafka.common.security.authenticator.SaslClientCallbackHandler\n")
            .problems();
    assertEquals(
        List.of(
            "conf/kafka.properties:2: key 'sasl.login.callback.handler.class': names class"
                + " io.strimzi.kafka.oauth.client.JaasClientOauthLoginCallbackHandler, which is not"
                + " on streamform's class path (Kafka loads it in every client streamform and the"
                + " job create) — add the jar that holds it as a dependency in cli/pom.xml"
                + " (streamform's class path and the job jar are built from it), or use Kafka's own"
                + " OAuth login,"
                + " org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
                + " with sasl.oauthbearer.token.endpoint.url, or remove the line"),
        problems);
  }

  @Test
  void aLineWithColonOrBlankForEqualsIsFixedWithItsOwnKey() {
    List<String> problems =
        sourceWith(
                "batch.size: 100\n"
                    + "linger.ms 5\n"
                    + "ssl.key.password: ${KAFKA_SSL_KEY_PASSWORD}\n"
                    + "words without any equals\n")
            .problems();
    assertEquals(4, problems.size(), problems.toString());
    assertThat(
        problems.get(0),
        containsString(
            "conf/kafka.properties:1: is not a key=value line: 'batch.size' is followed by ':',"
                + " not '=' — write batch.size=100, or start the line with #"));
    assertThat(problems.get(1), containsString("— write linger.ms=5, or start"));
    assertThat(
        "a secret's value is not shown, even in the fix",
        problems.get(2),
        containsString("— write ssl.key.password=<value>, or start"));
    assertThat(problems.get(3), containsString("— write words=<value>, or start"));
  }

  @Test
  void aMalformedUnicodeEscapeIsFixedAsAnEscape() {
    List<String> problems =
        sourceWith("security.protocol=SASL_SSL\nssl.truststore.location=C:\\users\\ca.pem\n")
            .problems();
    assertEquals(
        List.of(
            "conf/kafka.properties:2: cannot be read: \\u starts a character code in a"
                + " .properties file, and it is not followed by four hexadecimal digits — write a"
                + " backslash as \\\\ (C:\\\\certs\\\\ca.pem), a character as \\u and its four"
                + " hexadecimal digits (\\u00e9 for é), or the character itself (the file is"
                + " UTF-8)"),
        problems);
  }

  /**
   * A source reads from the earliest offsets with no consumer group (ADR 0142): a group with
   * auto-commit committed offsets before the outputs were published (the next run resumed mid-log
   * with empty state, and the events between were lost), and auto.offset.reset=latest read nothing
   * of what the topic held. Both overrode the source's own settings; they are refused with file,
   * line and fix, and the values that keep the contract are accepted.
   */
  @Test
  void settingsThatMoveWhereASourceReadsFromOrCommitOffsetsAreRefused() throws Exception {
    List<String> problems =
        sourceWith(
                "group.id=streamform-audit\n"
                    + "enable.auto.commit=true\n"
                    + "auto.offset.reset=latest\n"
                    + "group.instance.id=worker-1\n"
                    + "security.protocol=PLAINTEXT\n")
            .problems();
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:1: key 'group.id': joins a consumer group, and a"
                    + " streamform source joins none")));
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:2: key 'enable.auto.commit': commits the consumer's"
                    + " offsets as it reads")));
    assertThat(
        problems,
        hasItem(
            containsString(
                "conf/kafka.properties:3: key 'auto.offset.reset': starts a source at latest")));
    assertThat(
        problems,
        hasItem(containsString("conf/kafka.properties:4: key 'group.instance.id': joins")));
    assertThat(problems.toString(), containsString("remove the line"));
    assertEquals(4, problems.size(), problems.toString());

    sourceWith("enable.auto.commit=false\nauto.offset.reset=earliest\n").load();
    assertThat(
        sourceWith("enable.auto.commit=${AUTO_COMMIT}\n").problems(),
        hasItem(
            containsString(
                "conf/kafka.properties:1: key 'enable.auto.commit': commits the consumer's")));
  }
}
