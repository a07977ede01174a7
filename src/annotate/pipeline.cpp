#include "annotate/pipeline.h"

#include <utility>

namespace kdelay {

PipelinedSink::PipelinedSink(EntryAnnotator& annotator, TraceWriter& writer)
    : annotator_(annotator), writer_(writer), batches_(kBatches)
{
    for (auto& b : batches_) {
        b.entries.resize(kBatch);
        free_.push_back(&b);
    }
}

PipelinedSink::~PipelinedSink()
{
    try {
        finish();
    } catch (...) {
        // reported by the caller's finish(); a destructor must not throw
    }
}

void PipelinedSink::header(const TraceHeader& header)
{
    // The worker may outlive the reader's header: keep a copy.
    source_tpoints_ = header.tpoints.data();
    header_ = header;
    annotator_.prepare(header_);
    writer_.header(header_);
    worker_ = std::thread([this] { work(); });
}

TraceEntry& PipelinedSink::next_entry()
{
    if (!filling_) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return !free_.empty() || error_; });
        if (error_)
            std::rethrow_exception(error_);
        filling_ = free_.front();
        free_.pop_front();
        filling_->count = 0;
    }
    return filling_->entries[filling_->count];
}

void PipelinedSink::entry(TraceEntry& e)
{
    e.tpoint = header_.tpoints.data() + (e.tpoint - source_tpoints_);
    if (++filling_->count == kBatch)
        hand_over();
}

void PipelinedSink::hand_over()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        full_.push_back(filling_);
    }
    filling_ = nullptr;
    changed_.notify_all();
}

void PipelinedSink::finish()
{
    if (!worker_.joinable())
        return;
    if (filling_ && filling_->count)
        hand_over();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
    }
    changed_.notify_all();
    worker_.join();
    if (error_)
        std::rethrow_exception(error_);
}

void PipelinedSink::work()
{
    for (;;) {
        Batch* batch;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return !full_.empty() || closing_; });
            if (full_.empty())
                return;
            batch = full_.front();
            full_.pop_front();
        }
        try {
            for (size_t i = 0; i < batch->count; ++i)
                writer_.entry(batch->entries[i], annotator_.args(batch->entries[i]));
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            error_ = std::current_exception();
            changed_.notify_all();
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            free_.push_back(batch);
        }
        changed_.notify_all();
    }
}

}  // namespace kdelay
