// The app's small UI kit. Every piece reads the theme's CSS variables, so it works in
// both themes without props.
export { Badge, type BadgeProps, type BadgeVariant } from "./Badge";
export { Button, buttonClassName, type ButtonProps, type ButtonSize, type ButtonVariant } from "./Button";
export { Combobox, rankOption, type ComboboxOption, type ComboboxProps } from "./Combobox";
export { Card, CardDescription, CardFooter, CardHeader, CardTitle } from "./Card";
export { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger, type DialogContentProps } from "./Dialog";
export {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuGroup,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "./DropdownMenu";
export { FieldError, Input, Label, type InputProps } from "./Input";
export { Select, SelectContent, SelectItem, SelectTrigger, type SelectItemProps, type SelectTriggerProps } from "./Select";
export { LoadingRegion, Skeleton, type SkeletonProps } from "./Skeleton";
export { Spinner, type SpinnerProps } from "./Spinner";
