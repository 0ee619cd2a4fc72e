#include "lesson_table.h"

#include <QtGlobal>

#include <algorithm>

// The data limits, epochs and batches keep each lesson under 2 minutes from
// a fresh start (kernels measured on the first run) on a 2-core laptop
// (lessonSecondsOnTwoCores bounds each from its settings, fitted to these):
// measured with dp-workbench --lesson under xvfb on a shared 2-core machine
// (load 2-4), 50 s, 22 s, 57 s and 44 s in table order; 55-154 s at load 10-13.
// The straggler lesson: 23 s (load 1.7; 1.63x without the straggler, 1.21x with).
const std::vector<Lesson>& lessons()
{
    static const std::vector<Lesson> table{
        {"lenet-1-vs-2", QT_TRANSLATE_NOOP("Lessons", "LeNet on 1 vs 2 devices: too small to gain"),
         QT_TRANSLATE_NOOP("Lessons",
                           "LeNet does little work per sample: at batch 4, splitting each step saves "
                           "no more than its all-reduce costs. Look for a speedup of 1× or less in the "
                           "runs table, and the all-reduce on the Gap waterfall."),
         {{"model", "lenet"}, {"batch_size", "4"}, {"lr", "0.1"}, {"epochs", "4"},
          {"limit_train", "3000"}, {"limit_test", "1000"}},
         {{1, {}}, {2, {}}},
         LessonExpectation::speedupAtMostOne},
        {"resnet-1-vs-2", QT_TRANSLATE_NOOP("Lessons", "ResNet-18 on 1 vs 2 devices: gains"),
         QT_TRANSLATE_NOOP("Lessons",
                           "ResNet-18 (1/8 width) does far more work per sample than LeNet for "
                           "gradients of about the same size: at batch 16 the all-reduce is a small "
                           "part of each step. Look for a speedup well above 1× in the runs table."),
         {{"model", "resnet18-narrow"}, {"batch_size", "16"}, {"lr", "0.1"}, {"epochs", "4"},
          {"limit_train", "1000"}, {"limit_test", "500"}},
         {{1, {}}, {2, {}}},
         LessonExpectation::speedupWellAboveOne},
        {"dataparallel-vs-ddp", QT_TRANSLATE_NOOP("Lessons", "DataParallel vs DDP on 2 devices"),
         QT_TRANSLATE_NOOP("Lessons",
                           "DataParallel gathers the outputs and sums the gradients on device 0, "
                           "which alone updates and broadcasts the weights; DDP's ring splits the sums "
                           "and every device updates. Look for DataParallel's lower speedup in the "
                           "runs table and its extra parts on the Gap waterfall."),
         {{"model", "lenet"}, {"batch_size", "16"}, {"lr", "0.2"}, {"epochs", "3"},
          {"limit_train", "6000"}, {"limit_test", "1000"}},
         // Each strategy against a 1-device run of its own: one comparison
         // holding both would take them for repeats of one.
         {{1, {}}, {2, {{"allreduce", "ring"}}}, {1, {}}, {2, {{"allreduce", "dataparallel"}}}},
         LessonExpectation::secondSpeedupLower},
        {"batch-scaling", QT_TRANSLATE_NOOP("Lessons", "Batch scaling: 4× the batch, with and without warm-up"),
         QT_TRANSLATE_NOOP("Lessons",
                           "4× the batch at 4× the learning rate (the linear scaling rule) takes a "
                           "quarter of the steps per epoch, so its loss falls more slowly per epoch; "
                           "warm-up raises its rate over the first epoch instead of starting at full "
                           "rate. Compare the three runs' loss curves, the first epochs most."),
         {{"model", "resnet18-narrow"}, {"epochs", "4"}, {"limit_train", "2000"}, {"limit_test", "500"}},
         {{2, {{"batch_size", "16"}, {"lr", "0.1"}}},
          {2, {{"batch_size", "64"}, {"lr", "0.4"}}},
          {2, {{"batch_size", "64"}, {"lr", "0.4"}, {"warmup_epochs", "1"}}}}},
        {"straggler", QT_TRANSLATE_NOOP("Lessons", "A straggler: one slow device holds up every step"),
         QT_TRANSLATE_NOOP("Lessons",
                           "The second run's device 1 computes 1.5× slower, as a busier or older GPU "
                           "would; a synchronous step waits for it, so device 0 idles at every "
                           "all-reduce. Look for the lower speedup in the runs table, \"waiting for "
                           "the slowest device\" on the Gap waterfall and the wait in the Classroom's "
                           "step timeline."),
         {{"model", "resnet18-narrow"}, {"batch_size", "16"}, {"lr", "0.1"}, {"epochs", "3"},
          {"limit_train", "1000"}, {"limit_test", "500"}},
         // Each 2-device run against a 1-device run of its own, as above.
         {{1, {}}, {2, {}}, {1, {}}, {2, {}, 1.5}},
         LessonExpectation::secondSpeedupLower},
    };
    return table;
}

const Lesson* findLesson(std::string_view name)
{
    const auto& table = lessons();
    const auto found = std::find_if(table.begin(), table.end(),
                                    [name](const Lesson& lesson) { return name == lesson.name; });
    return found == table.end() ? nullptr : &*found;
}
