package io.standby.robot.admin;

import static io.standby.robot.model.RobotFields.SLOT;

import io.standby.robot.internal.MongoRobotStore;
import io.standby.robot.internal.RobotDocuments;
import io.standby.robot.internal.RobotRules;
import io.standby.robot.model.RobotView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToIntFunction;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The {@code robots} collection split the way a cluster sharded on {@code {slotId: 1}} splits it: each slot's robots
 * live on one shard (here a database of its own on the one embedded server), so {@code _id} is unique per shard only.
 * It stands in for mongos routing, which the embedded server lacks: an insert goes to its slot's shard, a change or
 * read without the shard key goes to every shard, and an {@code updateOne} or {@code deleteOne} applies on the first
 * shard where it matches, as mongos applies it on one matching document. A hand-over to a slot on another shard (a
 * distributed transaction under mongos) is not modelled: it throws.
 */
final class ShardedRobots implements RobotDocuments {

    private final List<MongoRobotStore> shards;
    private final ToIntFunction<String> shardOfSlot;

    ShardedRobots(List<MongoRobotStore> shards, ToIntFunction<String> shardOfSlot) {
        this.shards = List.copyOf(shards);
        this.shardOfSlot = shardOfSlot;
    }

    private MongoRobotStore shard(String slotId) {
        return shards.get(shardOfSlot.applyAsInt(slotId));
    }

    @Override
    public List<Document> find(Bson filter, List<String> exclude, int limit) {
        List<Document> all = new ArrayList<>();
        shards.forEach(shard -> all.addAll(shard.find(filter, exclude, limit)));
        all.sort(Comparator.comparing(doc -> String.valueOf(doc.get("_id"))));
        return limit > 0 && all.size() > limit ? all.subList(0, limit) : all;
    }

    @Override
    public boolean insert(Document robot) {
        return shard(robot.getString(SLOT)).insert(robot);
    }

    @Override
    public long update(RobotRules.Change change) {
        for (MongoRobotStore shard : shards) {
            if (shard.update(change) == 1) {
                return 1;
            }
        }
        return 0;
    }

    @Override
    public long revoke(String slotId, long epoch) {
        return shard(slotId).revoke(slotId, epoch);
    }

    @Override
    public boolean deleteIdle(RobotView robot) {
        return shards.stream().anyMatch(shard -> shard.deleteIdle(robot));
    }

    @Override
    public boolean deleteAdding(String id, String incarnation) {
        return shards.stream().anyMatch(shard -> shard.deleteAdding(id, incarnation));
    }

    @Override
    public boolean handOver(RobotRules.HandOver handOver) {
        throw new UnsupportedOperationException("a hand-over across shards is mongos's transaction, not modelled");
    }

    @Override
    public List<Document> countBySlotAndState() {
        List<Document> all = new ArrayList<>();
        shards.forEach(shard -> all.addAll(shard.countBySlotAndState()));
        return all;
    }
}
