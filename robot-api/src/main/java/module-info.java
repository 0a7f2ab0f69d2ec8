/**
 * The robot SPI: what a robot author and a plugin jar compile against. Its types speak BSON documents and SLF4J
 * loggers, so both come along to the robot's code.
 */
// BSON's jar names its module in its manifest, and keeps that name.
@SuppressWarnings("requires-transitive-automatic")
module io.standby.robot {
    requires transitive org.mongodb.bson;
    requires transitive org.slf4j;

    exports io.standby.robot;
}
