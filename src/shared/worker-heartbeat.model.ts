/** The last sign of life of each worker process (table worker_heartbeats; owner: shared/heartbeat.ts). */
import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class WorkerHeartbeat extends Model<InferAttributes<WorkerHeartbeat>, InferCreationAttributes<WorkerHeartbeat>> {
  declare workerId: string;
  declare host: string;
  declare pid: number;
  declare startedAt: Date;
  declare seenAt: Date;

  static initModel(sequelize: Sequelize): void {
    WorkerHeartbeat.init(
      {
        workerId: { type: DataTypes.TEXT, primaryKey: true },
        host: { type: DataTypes.TEXT, allowNull: false },
        pid: { type: DataTypes.INTEGER, allowNull: false },
        startedAt: { type: DataTypes.DATE, allowNull: false },
        seenAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'worker_heartbeats', underscored: true, timestamps: false },
    );
  }
}
