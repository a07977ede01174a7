// Runs annotation and formatting on a second thread, fed in batches, so the
// reader and the writer each get a core. Entries keep their order. Entries
// read before a fault are all written before the fault is reported.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "annotate/annotator.h"
#include "annotate/trace_reader.h"
#include "annotate/trace_writer.h"

namespace kdelay {

class PipelinedSink : public TraceSink {
public:
    PipelinedSink(EntryAnnotator& annotator, TraceWriter& writer);
    ~PipelinedSink() override;

    void header(const TraceHeader& header) override;
    TraceEntry& next_entry() override;
    void entry(TraceEntry& entry) override;
    // Writes what is queued and stops the thread; rethrows the writer's error.
    void finish();

private:
    struct Batch {
        std::vector<TraceEntry> entries;
        size_t count = 0;
    };
    static constexpr size_t kBatch = 1024, kBatches = 4;

    void work();
    void hand_over();

    EntryAnnotator& annotator_;
    TraceWriter& writer_;
    TraceHeader header_;
    const Tpoint* source_tpoints_ = nullptr;
    std::vector<Batch> batches_;
    Batch* filling_ = nullptr;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Batch*> full_, free_;
    bool closing_ = false;
    std::exception_ptr error_;
    std::thread worker_;
};

}  // namespace kdelay
