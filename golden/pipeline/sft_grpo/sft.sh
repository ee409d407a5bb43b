# Adapted from veRL's examples/sft/gsm8k/run_qwen_05_sp2.sh (Apache-2.0): the two GPUs and the checkpoint
# folder, which the example takes as arguments, are written in.
set -x

nproc_per_node=2
save_path=$HOME/checkpoints/sft

torchrun --standalone --nnodes=1 --nproc_per_node=$nproc_per_node \
     -m verl.trainer.fsdp_sft_trainer \
    data.train_files=$HOME/data/gsm8k/train.parquet \
    data.val_files=$HOME/data/gsm8k/test.parquet \
    data.prompt_key=extra_info \
    data.response_key=extra_info \
    optim.lr=1e-4 \
    data.prompt_dict_keys=['question'] \
    +data.response_dict_keys=['answer'] \
    data.micro_batch_size=4 \
    model.partial_pretrain=Qwen/Qwen2.5-0.5B-Instruct \
    trainer.default_local_dir=$save_path \
    trainer.project_name=gsm8k-sft \
    trainer.experiment_name=gsm8k-sft-qwen-2.5-0.5b-instruct-sp2 \
    trainer.logger=console \
    trainer.total_training_steps=1 $@ \
    ulysses_sequence_parallel_size=2 \
    use_remove_padding=true
